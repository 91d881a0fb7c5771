import WebSocket from 'ws';
import type { Upstream } from './upstream.ts';

const connectTimeoutMs = 5_000;
/** Headers kept for release: more than any lag a test sets. */
const headersKept = 1_024;

/** anvil's newHeads, re-announced as a node `lag` blocks behind sees them. */
export interface HeadFeed {
  /** Calls `deliver` with each header from now on, once the real head is `lag` blocks past it. Returns the unsubscribe. */
  subscribe(deliver: (header: unknown) => void): () => void;
  setLag(lag: number): void;
  close(): void;
}

interface Subscriber {
  deliver(header: unknown): void;
  lastDelivered: number;
}

/** One upstream subscription for the whole simulator; deliveries run in order through one promise chain. */
export async function startHeadFeed(upstreamWs: string, upstream: Upstream, lag: number): Promise<HeadFeed> {
  const socket = await openSocket(upstreamWs);
  socket.on('error', () => {});
  const subscriptionId = await subscribeNewHeads(socket);
  const headers = new Map<number, unknown>();
  const subscribers = new Set<Subscriber>();
  let realHead = -1;
  let delivering = Promise.resolve();
  const inOrder = (step: () => Promise<void> | void) => {
    delivering = delivering.then(step).catch(() => {});
  };

  // A header mined before the feed started is not in the map: anvil's newHeads is its whole block, hashes only.
  const headerAt = async (number: number) =>
    headers.get(number) ?? (await upstream.result<unknown>('eth_getBlockByNumber', [`0x${number.toString(16)}`, false]));
  const releaseHeld = async () => {
    for (const subscriber of subscribers) {
      for (let next = subscriber.lastDelivered + 1; next <= realHead - lag; next++) {
        const header = await headerAt(next);
        subscriber.lastDelivered = next;
        if (header !== null) subscriber.deliver(header);
      }
    }
  };
  // Honest: every header as it comes, a re-announced height (revert, reorg) included.
  const deliverNow = (header: unknown, number: number) => {
    for (const subscriber of subscribers) {
      subscriber.deliver(header);
      subscriber.lastDelivered = number;
    }
  };

  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { method?: string; params?: { subscription?: string; result?: unknown } };
    if (message.method !== 'eth_subscription' || message.params?.subscription !== subscriptionId) return;
    const header = message.params.result as { number: string };
    const number = Number(header.number);
    realHead = number;
    headers.set(number, header);
    headers.delete(number - headersKept);
    inOrder(() => (lag > 0 ? releaseHeld() : deliverNow(header, number)));
  });
  realHead = Math.max(realHead, await upstream.headNumber());

  return {
    subscribe(deliver) {
      const subscriber = { deliver, lastDelivered: Math.max(0, realHead - lag) };
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    setLag(value) {
      lag = value;
      inOrder(releaseHeld);
    },
    close: () => socket.terminate(),
  };
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { handshakeTimeout: connectTimeoutMs });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function subscribeNewHeads(socket: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('anvil did not confirm the newHeads subscription')), connectTimeoutMs);
    const onMessage = (data: WebSocket.RawData) => {
      const reply = JSON.parse(String(data)) as { id?: number; result?: string; error?: { message: string } };
      if (reply.id !== 1) return;
      clearTimeout(timer);
      socket.off('message', onMessage);
      if (reply.result === undefined) reject(new Error(`anvil refused newHeads: ${reply.error?.message}`));
      else resolve(reply.result);
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  });
}
