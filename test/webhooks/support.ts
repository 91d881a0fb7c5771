import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are inspected freely
  readonly json: any;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the request hangs until the client gives up). */
  hang?: boolean;
}

export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** How the next requests are answered (default 200). */
  answer: (request: ReceivedRequest) => Answer;
  /** Waits until `predicate` holds for the requests received so far. */
  waitFor(predicate: (requests: readonly ReceivedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request. */
export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    requests,
    answer: () => ({ status: 200 }),
    async waitFor(predicate, timeoutMs = 15_000, what = 'requests') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: ${what} not seen within ${timeoutMs} ms (got ${requests.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => undefined as never,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request = { headers: req.headers, body, at: Date.now(), json };
      requests.push(request);
      const answer = receiver.answer(request);
      if (answer.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Checks a delivery's signatures both ways: with the standardwebhooks package, and with an HMAC written here. */
export function verifySignatures(
  request: ReceivedRequest,
  secret: string,
  format: 'snake_case' | 'camelCase' = 'snake_case',
): void {
  const headers = request.headers as Record<string, string>;
  // The Standard Webhooks library (throws on a bad signature or a stale timestamp).
  const verified = new Webhook(secret).verify(request.body, {
    'webhook-id': headers['webhook-id']!,
    'webhook-timestamp': headers['webhook-timestamp']!,
    'webhook-signature': headers['webhook-signature']!,
  });
  expect(verified).toEqual(JSON.parse(request.body));
  expect(headers['webhook-id']).toBe(request.json.id);
  expect(headers['x-webhook-idempotency-key']).toBe(request.json.id);
  // The service's own header, recomputed independently.
  const timestamp = headers['x-service-timestamp']!;
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
  const expected =
    format === 'camelCase'
      ? `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`
      : createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex');
  expect(headers['x-service-signature']!.split(',')).toContain(expected);
}

export interface ApiAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
  readonly body: any;
}

/**
 * One call of the service's JSON API with an API key (`undefined`: no `x-api-key` header); a body, when
 * given, goes as JSON. Answers the status and the parsed body.
 */
export async function callApi(
  baseUrl: string,
  apiKey: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<ApiAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: await response.json() };
}

/** `POST /v1/webhooks` for an ethereum webhook delivering to `url`; the answer is left to the caller to check. */
export function postWebhook(
  baseUrl: string,
  apiKey: string,
  url: string,
  eventType: string,
  config: Record<string, unknown>,
): Promise<ApiAnswer> {
  return callApi(baseUrl, apiKey, 'POST', '/v1/webhooks', { url, chain: 'ethereum', event_type: eventType, config });
}

/** What most webhook tests start from: the indexed devnet (`startIndexedChain`), a receiver and an API key. */
export interface WebhookChain {
  readonly chain: IndexedChain;
  readonly receiver: Receiver;
  readonly key: string;
  /** Stops the service and the receiver. */
  stop(): Promise<void>;
}

export async function startWebhookChain(options: Parameters<typeof startIndexedChain>[0] = {}): Promise<WebhookChain> {
  const chain = await startIndexedChain(options);
  let receiver: Receiver | undefined;
  const stop = async () => {
    await chain.service.stop();
    await receiver?.close();
  };
  try {
    receiver = await startReceiver();
    const { key } = await chain.service.createKey();
    return { chain, receiver, key, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
