import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/webhooks/claim-deliveries.ts';
import { buildDeliveryRequest } from '../../../src/webhooks/delivery-request.ts';
import { generateSigningSecret } from '../../../src/webhooks/secrets.ts';

const delivery: ClaimedDelivery = {
  id: 'dlv_1',
  event_id: 'evt_1',
  kind: 'event',
  attempts: 0,
  event_type: 'nft_transfer',
  data: { contract: '0x01' },
  removed: false,
  removes_event_id: null,
  test: false,
  event_created_at: new Date('2026-11-27T09:59:00.000Z'),
  network: 'ethereum/devnet',
};
// Now: the Standard Webhooks check refuses a timestamp more than 5 minutes away.
const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 900);

describe('buildDeliveryRequest', () => {
  it('renders the payload and names, keys and signs it with the timestamp given', () => {
    const secret = generateSigningSecret();
    const request = buildDeliveryRequest({
      delivery,
      webhookId: 'wh_1',
      format: 'snake_case',
      secrets: [secret],
      chainId: 31337,
      maxPayloadBytes: 1_000_000,
      at,
    });
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ id: 'evt_1', event_type: 'nft_transfer', webhook_id: 'wh_1', data: { contract: '0x01' } });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Blockyard-Webhooks/1',
      'x-webhook-event': 'nft_transfer',
      'x-webhook-idempotency-key': 'evt_1',
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    });
    expect(new Webhook(secret).sign('evt_1', at, request.body)).toBe(request.headers['webhook-signature']);
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(body);
  });

  it('names the event by its Variant B name in camelCase', () => {
    const request = buildDeliveryRequest({
      delivery,
      webhookId: 'wh_1',
      format: 'camelCase',
      secrets: [generateSigningSecret()],
      chainId: 31337,
      maxPayloadBytes: 1_000_000,
      at,
    });
    expect(request.headers['x-webhook-event']).toBe('NFT_ACTIVITY');
  });
});
