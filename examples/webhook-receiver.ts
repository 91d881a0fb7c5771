// A webhook receiver that checks Blockyard's signatures with nothing but Node's standard library.
// Run it: BLOCKYARD_WEBHOOK_SECRET=whsec_… node --experimental-strip-types examples/webhook-receiver.ts
// (or with tsx), then create a webhook whose url is http://127.0.0.1:3000/hooks (RECEIVER_PORT=… for another port).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** Receivers reject a timestamp further than this from their clock (replayed or delayed requests). */
const toleranceS = 300;

/**
 * True when `rawBody` (the exact bytes received, before any JSON parsing) was signed with `secret`.
 * Checks `X-Service-Signature`: Variant A (the default, hex HMAC-SHA256 of `<timestamp>.<body>`) or,
 * for a webhook created with `payload_format: "camelCase"`, `sha256=<hex>` of the body. During the 24 h
 * after a secret rotation the header carries two signatures, comma-separated: either may match.
 */
export function verifyBlockyardSignature(rawBody: string, headers: IncomingHttpHeaders, secret: string, now = Date.now()): boolean {
  const timestamp = String(headers['x-service-timestamp'] ?? '');
  const signatures = String(headers['x-service-signature'] ?? '').split(',');
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > toleranceS) return false;
  const variantA = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  const variantB = `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
  return signatures.some((signature) => sameText(signature, variantA) || sameText(signature, variantB));
}

/** Constant-time comparison, so the time taken does not tell how much of a guess was right. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Event ids already handled: a delivery can come more than once (at-least-once), with the same id. */
const seen = new Set<string>();

export function startReceiver(secret: string, port = 3000) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      if (!verifyBlockyardSignature(rawBody, request.headers, secret)) {
        response.writeHead(401).end('bad signature');
        return;
      }
      const event = JSON.parse(rawBody) as { id: string; event_type?: string; type?: string; removed: boolean; removes_event_id?: string };
      if (!seen.has(event.id)) {
        seen.add(event.id);
        // A reorg took back an event already sent: undo what event.removes_event_id did.
        if (event.removed) console.log(`undo ${event.removes_event_id}`);
        else console.log(`${event.event_type ?? event.type} ${event.id}`);
      }
      // Answer 2xx quickly (within 15 s); do slow work after answering.
      response.writeHead(204).end();
    });
  });
  return server.listen(port, '127.0.0.1');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.BLOCKYARD_WEBHOOK_SECRET;
  if (!secret) throw new Error('set BLOCKYARD_WEBHOOK_SECRET to the webhook signing_secret (whsec_…)');
  const port = Number(process.env.RECEIVER_PORT ?? 3000);
  startReceiver(secret, port);
  console.log(`listening on http://127.0.0.1:${port}/hooks`);
}
