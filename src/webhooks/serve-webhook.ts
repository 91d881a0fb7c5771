import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import type { WebhooksConfig } from '../config/webhook-settings.ts';
import type { Tables } from '../db/tables.ts';
import { claimDueDeliveries, lockServedWebhook } from './claim-deliveries.ts';
import { applyDailyCap } from './daily-delivery-cap.ts';
import { disableGoneWebhook, pauseWebhook } from './pause-webhook.ts';
import { planDeliveryOutcomes } from './plan-delivery-outcomes.ts';
import { recordAttempts } from './record-attempts.ts';
import type { SecretBox } from './secrets.ts';
import { sendClaimed } from './send-claimed.ts';
import type { DeliverySender } from './send-delivery.ts';
import { openWebhookSecrets } from './webhook-secrets.ts';

/** Deliveries one claim takes from one webhook at most. */
export const deliveryBatchSize = 200;

export interface ServeDeps {
  db: Kysely<Tables>;
  sender: DeliverySender;
  secrets: SecretBox;
  config: WebhooksConfig;
  chainIdOf: (network: string) => number;
  /** A pause committed: its notice, recorded with it, is due. */
  onPaused: () => void;
  attempts: Counter<'outcome'>;
  logger: Logger;
}

/**
 * How a round of one webhook ended: `full`, its batch was full (more may be due); `held`, its signing
 * secret does not open (nothing was sent); `done` otherwise, or when another worker holds it.
 */
export type ServeResult = 'full' | 'held' | 'done';

/**
 * Serves one webhook's due deliveries in one transaction: lock, claim, daily cap, send, decide each
 * outcome, record the attempts, disable or pause the webhook when it must (its notice recorded with the
 * pause, sent after the commit). A process that dies mid-way leaves its claims to the next worker.
 */
export async function serveWebhook(deps: ServeDeps, webhookId: string): Promise<ServeResult> {
  const { config, logger } = deps;
  let paused = false;
  const result = await deps.db.transaction().execute(async (trx): Promise<ServeResult> => {
    const locked = await lockServedWebhook(trx, webhookId);
    if (locked === 'busy' || locked === 'gone') return 'done';
    const { webhook, now } = locked;
    if (webhook.status === 'disabled') return 'done';
    const secrets = await openWebhookSecrets(trx, deps.secrets, webhook, logger, now().getTime());
    if (!secrets) return 'held';
    const claimed = await claimDueDeliveries(trx, webhook, deliveryBatchSize);
    if (claimed.length === 0) return 'done';

    const toSend = await applyDailyCap(trx, webhook, claimed, now());
    const { sent, gone } = await sendClaimed({
      deliveries: toSend,
      webhook,
      secrets,
      sender: deps.sender,
      maxInFlight: config.maxInFlightPerEndpoint,
      maxPayloadBytes: config.maxPayloadBytes,
      chainIdOf: deps.chainIdOf,
      now,
    });
    const outcomes = planDeliveryOutcomes({ sent, webhook, gone, retryScheduleS: config.retryScheduleS, now });
    for (const update of outcomes.updates) deps.attempts.inc({ outcome: update.outcome });
    await recordAttempts(trx, webhook, sent, outcomes.updates);
    if (outcomes.stop === 'gone') await disableGoneWebhook(trx, webhookId, now(), logger);
    else if (outcomes.stop === 'paused' && outcomes.paused) paused = await pauseWebhook(trx, outcomes.paused, now(), logger);
    return claimed.length === deliveryBatchSize && !outcomes.stop ? 'full' : 'done';
  });
  if (paused) deps.onPaused();
  return result;
}
