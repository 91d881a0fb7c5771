import { describe, expect, it } from 'vitest';
import { eventId, newDeliveryId, newWebhookId } from '../../../src/webhooks/ids.ts';

describe('eventId', () => {
  it('is the same for the same webhook and source', () => {
    expect(eventId('wh_1', 'ethereum/devnet:tx:0xabc')).toBe(eventId('wh_1', 'ethereum/devnet:tx:0xabc'));
    expect(eventId('wh_1', 'x')).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it('differs for another webhook or another source', () => {
    const base = eventId('wh_1', 'source');
    expect(eventId('wh_2', 'source')).not.toBe(base);
    expect(eventId('wh_1', 'source2')).not.toBe(base);
    expect(eventId('source', 'wh_1')).not.toBe(base);
  });
});

describe('new ids', () => {
  it('are prefixed base58 and fresh each time', () => {
    expect(newWebhookId()).toMatch(/^wh_[1-9A-HJ-NP-Za-km-z]{20,22}$/);
    expect(newDeliveryId()).toMatch(/^dlv_[1-9A-HJ-NP-Za-km-z]{20,22}$/);
    expect(newWebhookId()).not.toBe(newWebhookId());
  });
});
