import { createHmac } from 'node:crypto';
import type { PayloadFormat } from './payloads.ts';

const secretPrefix = 'whsec_';

/**
 * The headers that authenticate one delivery, for every secret that currently signs (the new one
 * first, and for 24 h after a rotation the previous one too):
 * - `X-Service-Signature`: Variant A, hex HMAC-SHA256 keyed with the whole secret over
 *   `<timestamp>.<body>`; Variant B (`camelCase`), `sha256=<hex>` over the body. Several are
 *   comma-separated.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` (`v1,<base64>` over
 *   `<id>.<timestamp>.<body>`, keyed with the secret's base64 bytes; several are space-separated).
 */
export function signatureHeaders(input: {
  secrets: readonly string[];
  format: PayloadFormat;
  eventId: string;
  timestamp: number;
  body: string;
}): Record<string, string> {
  const { secrets, format, eventId, timestamp, body } = input;
  const service = secrets.map((secret) =>
    format === 'camelCase' ? `sha256=${hmacHex(secret, body)}` : hmacHex(secret, `${timestamp}.${body}`),
  );
  const standard = secrets.map(
    (secret) => `v1,${createHmac('sha256', standardKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`,
  );
  return {
    'x-service-signature': service.join(','),
    'x-service-timestamp': String(timestamp),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
  };
}

function hmacHex(key: string, content: string): string {
  return createHmac('sha256', key).update(content).digest('hex');
}

/** Standard Webhooks keys are the base64 bytes after `whsec_`. */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
}
