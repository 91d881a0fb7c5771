import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/webhooks/claim-deliveries.ts';
import { planDeliveryOutcomes } from '../../../src/webhooks/plan-delivery-outcomes.ts';
import type { SentDelivery } from '../../../src/webhooks/send-claimed.ts';
import type { SendResult } from '../../../src/webhooks/send-delivery.ts';

const webhook = { id: 'wh_1', account_id: 'acc_1', url: 'https://example.com/hook' };
const at = new Date('2026-11-27T10:00:00.000Z');
const now = () => at;
const schedule = [10, 60];

function delivery(id: string, overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    id,
    event_id: `evt_${id}`,
    kind: 'event',
    attempts: 0,
    event_type: 'new_block',
    data: {},
    removed: false,
    removes_event_id: null,
    test: false,
    event_created_at: at,
    network: 'ethereum/devnet',
    ...overrides,
  };
}

function sent(item: ClaimedDelivery, result: Partial<SendResult>): SentDelivery {
  return {
    delivery: item,
    request: { headers: {}, body: '{}' },
    at,
    result: { ok: false, status: 500, responseBody: null, retryAfter: undefined, latencyMs: 3, error: 'HTTP 500', ...result },
  };
}

const plan = (attempts: SentDelivery[], gone = false) =>
  planDeliveryOutcomes({ sent: attempts, webhook, gone, retryScheduleS: schedule, now });

describe('planDeliveryOutcomes', () => {
  it('marks a 2xx delivered', () => {
    const outcomes = plan([sent(delivery('a'), { ok: true, status: 200, error: null })]);
    expect(outcomes.updates).toEqual([{ id: 'a', status: 'succeeded', next: at, note: null, outcome: 'delivered' }]);
    expect(outcomes.stop).toBeUndefined();
  });

  it('schedules the next attempt of a failure from the retry schedule (±10%), and a longer Retry-After wins', () => {
    const [first, second] = plan([
      sent(delivery('a'), {}),
      sent(delivery('b', { attempts: 1 }), { status: 429, retryAfter: '600', error: 'HTTP 429' }),
    ]).updates;
    expect(first).toMatchObject({ id: 'a', status: 'pending', outcome: 'retrying' });
    const delay = first!.next.getTime() - at.getTime();
    expect(delay).toBeGreaterThanOrEqual(9_000);
    expect(delay).toBeLessThanOrEqual(11_000);
    expect(first!.note).toBe(`attempt 1 failed: HTTP 500; next attempt at ${first!.next.toISOString()}`);
    expect(second!.next.getTime() - at.getTime()).toBe(600_000);
  });

  it('fails a delivery whose retries are spent and pauses the webhook, naming the attempts and the last error', () => {
    const outcomes = plan([sent(delivery('a', { attempts: 2 }), { error: 'connection refused' })]);
    expect(outcomes.updates).toEqual([
      { id: 'a', status: 'failed', next: at, note: 'failed after 3 attempts: connection refused', outcome: 'failed' },
    ]);
    expect(outcomes.stop).toBe('paused');
    expect(outcomes.paused).toEqual({
      webhookId: 'wh_1',
      accountId: 'acc_1',
      url: 'https://example.com/hook',
      attempts: 3,
      lastError: 'connection refused',
    });
  });

  it('tries a test event once and never pauses for it', () => {
    const outcomes = plan([sent(delivery('t', { kind: 'test' }), { error: 'HTTP 503' })]);
    expect(outcomes.updates).toEqual([
      { id: 't', status: 'failed', next: at, note: 'test event not delivered: HTTP 503', outcome: 'failed' },
    ]);
    expect(outcomes.stop).toBeUndefined();
    expect(outcomes.paused).toBeUndefined();
  });

  it('fails a 410 for good, and a gone endpoint is not also paused', () => {
    const outcomes = plan(
      [sent(delivery('a'), { status: 410, error: 'HTTP 410' }), sent(delivery('b', { attempts: 2 }), { error: 'HTTP 500' })],
      true,
    );
    expect(outcomes.updates.map((update) => [update.id, update.status, update.outcome])).toEqual([
      ['a', 'failed', 'gone'],
      ['b', 'failed', 'failed'],
    ]);
    expect(outcomes.updates[0]!.note).toBe('the endpoint answered 410 Gone: the webhook is disabled');
    expect(outcomes.stop).toBe('gone');
    expect(outcomes.paused).toBeUndefined();
  });
});
