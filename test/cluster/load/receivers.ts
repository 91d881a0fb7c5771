import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface Reception {
  eventId: string;
  /** `${tx_hash}:${log_index}`: the chain log the event stands for. */
  logKey: string;
  block: number;
  logIndex: number;
  removed: boolean;
  test: boolean;
  at: number;
  /** The status the receiver answered. */
  answered: number;
}

/** The receiving end of one webhook: what it got, in arrival order. */
export interface WebhookInbox {
  readonly index: number;
  readonly path: string;
  secret: string | undefined;
  /** Share of first attempts (an event id never seen) answered 503, to exercise retries. */
  readonly failFirstAttempts: number;
  readonly receptions: Reception[];
  /** Requests whose signature did not verify (answered 401). */
  badSignatures: number;
}

export interface Receivers {
  readonly inboxes: WebhookInbox[];
  urlOf(index: number): string;
  close(): Promise<void>;
}

/**
 * One HTTP server on the rx host with a path per webhook. Each request's Standard Webhooks signature
 * is verified with that webhook's secret (`standardwebhooks`, as a customer would); a good one is
 * recorded and answered 204, except the share of first attempts an inbox is told to refuse (503).
 */
export async function startReceivers(bindHost: string, failFirstAttempts: readonly number[]): Promise<Receivers> {
  const inboxes: WebhookInbox[] = failFirstAttempts.map((fail, index) => ({
    index,
    path: `/hooks/${index}`,
    secret: undefined,
    failFirstAttempts: fail,
    receptions: [],
    badSignatures: 0,
  }));
  const seen = inboxes.map(() => new Set<string>());
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = inboxes.findIndex((inbox) => inbox.path === req.url);
      const inbox = inboxes[index];
      if (!inbox?.secret) {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const event = verified(inbox.secret, body, req.headers);
      if (!event) {
        inbox.badSignatures++;
        res.writeHead(401).end();
        return;
      }
      const first = !seen[index]!.has(event.id);
      seen[index]!.add(event.id);
      const refuse = first && Math.random() < inbox.failFirstAttempts;
      const answered = refuse ? 503 : 204;
      const data = event.data ?? {};
      inbox.receptions.push({
        eventId: event.id,
        logKey: `${String(data.tx_hash).toLowerCase()}:${Number(data.log_index)}`,
        block: Number(data.block_number),
        logIndex: Number(data.log_index),
        removed: event.removed === true,
        test: event.test === true,
        at: Date.now(),
        answered,
      });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, bindHost, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    inboxes,
    urlOf: (index) => `http://${bindHost}:${port}${inboxes[index]!.path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface DeliveredEvent {
  id: string;
  removed?: boolean;
  test?: boolean;
  data?: { tx_hash?: string; log_index?: number; block_number?: number };
}

function verified(secret: string, body: string, headers: IncomingHttpHeaders): DeliveredEvent | undefined {
  try {
    const plain: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') plain[name] = value;
    return new Webhook(secret).verify(body, plain) as DeliveredEvent;
  } catch {
    return undefined;
  }
}
