import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../../src/webhooks/secrets.ts';
import { signatureHeaders } from '../../../src/webhooks/signing.ts';

const body = JSON.stringify({ id: 'evt_1', event_type: 'new_block', data: { number: 7 } });
const eventId = 'evt_0123456789abcdef';
const now = () => Math.floor(Date.now() / 1000);
const hmacHex = (key: string, content: string) => createHmac('sha256', key).update(content).digest('hex');

describe('signatureHeaders with one secret', () => {
  const secret = generateSigningSecret();

  it('Variant A: hex HMAC-SHA256 keyed with the whole secret over <timestamp>.<body>', () => {
    const timestamp = now();
    const headers = signatureHeaders({ secrets: [secret], format: 'snake_case', eventId, timestamp, body });
    expect(headers['x-service-signature']).toBe(hmacHex(secret, `${timestamp}.${body}`));
    expect(headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(headers['x-service-timestamp']).toBe(String(timestamp));
  });

  it('camelCase: sha256=<hex> over the body alone', () => {
    const timestamp = now();
    const headers = signatureHeaders({ secrets: [secret], format: 'camelCase', eventId, timestamp, body });
    expect(headers['x-service-signature']).toBe(`sha256=${hmacHex(secret, body)}`);
  });

  it.each(['snake_case', 'camelCase'] as const)(
    '%s: the Standard Webhooks headers verify with the standardwebhooks package',
    (format) => {
      const timestamp = now();
      const headers = signatureHeaders({ secrets: [secret], format, eventId, timestamp, body });
      expect(headers['webhook-id']).toBe(eventId);
      expect(headers['webhook-timestamp']).toBe(String(timestamp));
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      // The package signs the same way.
      expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(eventId, new Date(timestamp * 1000), body));
    },
  );

  it('a changed body, id, or another secret does not verify', () => {
    const timestamp = now();
    const headers = signatureHeaders({ secrets: [secret], format: 'snake_case', eventId, timestamp, body });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_other' })).toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
  });
});

describe('signatureHeaders with two secrets (during a rotation)', () => {
  const current = generateSigningSecret();
  const previous = generateSigningSecret();

  it('Variant A: comma-separated X-Service-Signature, new secret first, each verifying', () => {
    const timestamp = now();
    const headers = signatureHeaders({ secrets: [current, previous], format: 'snake_case', eventId, timestamp, body });
    const parts = (headers['x-service-signature'] as string).split(',');
    expect(parts).toEqual([hmacHex(current, `${timestamp}.${body}`), hmacHex(previous, `${timestamp}.${body}`)]);
  });

  it('camelCase: comma-separated sha256= signatures', () => {
    const headers = signatureHeaders({ secrets: [current, previous], format: 'camelCase', eventId, timestamp: now(), body });
    expect((headers['x-service-signature'] as string).split(',')).toEqual([
      `sha256=${hmacHex(current, body)}`,
      `sha256=${hmacHex(previous, body)}`,
    ]);
  });

  it('space-separated webhook-signature that verifies with either secret', () => {
    const headers = signatureHeaders({ secrets: [current, previous], format: 'snake_case', eventId, timestamp: now(), body });
    expect((headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
  });
});
