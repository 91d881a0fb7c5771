import type { ServedWebhook } from './claim-deliveries.ts';
import type { PausedNotice } from './paused-notice.ts';
import { nextAttemptDelayMs, parseRetryAfter } from './retry-schedule.ts';
import type { SentDelivery } from './send-claimed.ts';

export type AttemptOutcome = 'delivered' | 'gone' | 'failed' | 'retrying';

/** What one attempt leaves on its delivery row. */
export interface DeliveryUpdate {
  readonly id: string;
  readonly status: 'succeeded' | 'failed' | 'pending';
  readonly next: Date;
  readonly note: string | null;
  readonly outcome: AttemptOutcome;
}

export interface DeliveryOutcomes {
  readonly updates: DeliveryUpdate[];
  /** `gone`: the endpoint answered 410 (the webhook is disabled); `paused`: a delivery ran out of retries. */
  readonly stop: 'gone' | 'paused' | undefined;
  /** Set when `stop` is `paused`: what the account is told. */
  readonly paused: PausedNotice | undefined;
}

/**
 * Decides, for each attempt made, what becomes of its delivery: delivered; failed for good (a 410, a
 * test event, or the retry schedule spent, which pauses the webhook); or pending again at its next
 * attempt. Pure but for `now` and the schedule's jitter.
 */
export function planDeliveryOutcomes(input: {
  sent: readonly SentDelivery[];
  webhook: Pick<ServedWebhook, 'id' | 'account_id' | 'url'>;
  gone: boolean;
  retryScheduleS: readonly number[];
  now: () => Date;
}): DeliveryOutcomes {
  const { webhook, now } = input;
  let stop: 'gone' | 'paused' | undefined = input.gone ? 'gone' : undefined;
  let paused: PausedNotice | undefined;
  const updates: DeliveryUpdate[] = [];
  for (const { delivery, result } of input.sent) {
    const attempt = delivery.attempts + 1;
    if (result.ok) {
      updates.push({ id: delivery.id, status: 'succeeded', next: now(), note: null, outcome: 'delivered' });
      continue;
    }
    if (result.status === 410) {
      updates.push({
        id: delivery.id,
        status: 'failed',
        next: now(),
        note: 'the endpoint answered 410 Gone: the webhook is disabled',
        outcome: 'gone',
      });
      continue;
    }
    // A test event is tried once: it tells whether the endpoint works now.
    const delay =
      delivery.kind === 'test'
        ? undefined
        : nextAttemptDelayMs(input.retryScheduleS, attempt, parseRetryAfter(result.retryAfter));
    if (delay === undefined) {
      updates.push({
        id: delivery.id,
        status: 'failed',
        next: now(),
        note:
          delivery.kind === 'test'
            ? `test event not delivered: ${result.error}`
            : `failed after ${attempt} attempts: ${result.error}`,
        outcome: 'failed',
      });
      if (delivery.kind !== 'test' && !stop) {
        stop = 'paused';
        paused = {
          webhookId: webhook.id,
          accountId: webhook.account_id,
          url: webhook.url,
          attempts: attempt,
          lastError: result.error ?? 'failed',
        };
      }
      continue;
    }
    const next = new Date(now().getTime() + delay);
    updates.push({
      id: delivery.id,
      status: 'pending',
      next,
      note: `attempt ${attempt} failed: ${result.error}; next attempt at ${next.toISOString()}`,
      outcome: 'retrying',
    });
  }
  return { updates, stop, paused };
}
