// The reference for "the service saw the block": a newHeads subscription over the service's own
// WebSocket endpoint, each head's arrival time kept by block number.
import WebSocket from 'ws';
import { monotonicUs, wallMs } from './webhook-protocol.ts';

export interface HeadArrival {
  /** Monotonic microseconds and wall-clock milliseconds when the head arrived here. */
  us: number;
  wallMs: number;
  /** The block's own timestamp, ms. */
  timestampMs: number;
}

export interface HeadWatcher {
  readonly arrivals: ReadonlyMap<number, HeadArrival>;
  /** Closes after subscribing (code), or messages that were not a head: both should stay empty. */
  readonly problems: string[];
  close(): void;
}

/** Connects and subscribes; resolves once the subscription is confirmed, rejects after `timeoutMs`. */
export function watchHeads(url: string, timeoutMs: number): Promise<HeadWatcher> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, HeadArrival>();
    const problems: string[] = [];
    let subscription: string | undefined;
    let closing = false;
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs });
    const watcher: HeadWatcher = {
      arrivals,
      problems,
      close() {
        closing = true;
        ws.terminate();
      },
    };
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`newHeads over ${url.replace(/apiKey=[^&]+/, 'apiKey=...')}: not subscribed within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      ws.terminate();
      reject(new Error(`WebSocket upgrade answered ${response.statusCode}`));
    });
    ws.on('error', (error) => {
      if (!subscription) {
        clearTimeout(timer);
        reject(error);
      } else problems.push(`error: ${error.message}`);
    });
    ws.on('close', (code) => {
      clearTimeout(timer);
      if (!subscription) reject(new Error(`WebSocket closed with ${code} before subscribing`));
      else if (!closing) problems.push(`closed with ${code}`);
    });
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    ws.on('message', (data) => {
      const us = monotonicUs();
      const wall = wallMs();
      const message = JSON.parse(String(data)) as {
        id?: unknown;
        result?: unknown;
        params?: { subscription?: string; result?: { number?: string; timestamp?: string } };
      };
      if (!subscription) {
        clearTimeout(timer);
        if (message.id === 1 && typeof message.result === 'string') {
          subscription = message.result;
          resolve(watcher);
        } else {
          ws.terminate();
          reject(new Error(`eth_subscribe answered ${String(data).slice(0, 200)}`));
        }
        return;
      }
      const head = message.params?.result;
      if (message.params?.subscription !== subscription || !head?.number || !head.timestamp) {
        problems.push(`unexpected message ${String(data).slice(0, 100)}`);
        return;
      }
      const number = Number.parseInt(head.number, 16);
      if (!arrivals.has(number))
        arrivals.set(number, { us, wallMs: wall, timestampMs: Number.parseInt(head.timestamp, 16) * 1000 });
    });
  });
}
