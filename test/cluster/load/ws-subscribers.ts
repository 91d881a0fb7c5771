import WebSocket from 'ws';
import type { PhaseRecorder } from './phase-stats.ts';
import { answerDeadlineMs, breaksErrorContract } from './timed-request.ts';

/** A subscriber silent this long while the chain made blocks has a gap (reported per phase). */
const gapMs = 5_000;
/** Silent this long while the chain made blocks: the connection is dropped and made again. */
const staleMs = 10_000;
const reconnectDelayMs = 500;

export interface HeadSubscribers {
  readonly subscribers: number;
  headsReceived(): number;
  reconnects(): number;
  /** Every subscriber is connected and got a head lately (or the chain made none meanwhile). */
  allFresh(): boolean;
  stop(): void;
}

interface Subscriber {
  socket: WebSocket | undefined;
  connected: boolean;
  lastHeadAt: number;
  inGap: boolean;
}

/**
 * `count` WebSocket clients subscribed to newHeads through the load balancer. A dropped connection
 * is made again (counted); each upgrade is recorded in the current phase ('101', a refusal's status,
 * or no answer within 5 s).
 */
export function startHeadSubscribers(deps: {
  url: string;
  count: number;
  recorder: PhaseRecorder;
  /** When the observer first saw the chain's head move after a time (local clock), if it has. */
  chainMovedAfter: (since: number) => number | undefined;
}): HeadSubscribers {
  let heads = 0;
  let reconnects = 0;
  let stopped = false;
  const subscribers: Subscriber[] = Array.from({ length: deps.count }, () => ({
    socket: undefined,
    connected: false,
    lastHeadAt: Date.now(),
    inGap: false,
  }));

  function connect(subscriber: Subscriber): void {
    const started = performance.now();
    let settled = false;
    const settle = (outcome: Parameters<PhaseRecorder['record']>[0]) => {
      if (settled) return;
      settled = true;
      deps.recorder.record(outcome);
    };
    const socket = new WebSocket(deps.url, { handshakeTimeout: answerDeadlineMs });
    subscriber.socket = socket;
    socket.on('open', () => {
      settle({ status: 101, ms: performance.now() - started, bad: false });
      subscriber.connected = true;
      subscriber.lastHeadAt = Date.now();
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        const status = response.statusCode ?? 0;
        settle({ status, ms: performance.now() - started, bad: breaksErrorContract(status, headers, body) });
        socket.terminate();
      });
      response.on('error', () => socket.terminate());
    });
    socket.on('message', (raw) => {
      let message: { method?: string; error?: unknown; id?: unknown };
      try {
        message = JSON.parse(String(raw));
      } catch {
        return;
      }
      if (message.method === 'eth_subscription') {
        heads++;
        subscriber.lastHeadAt = Date.now();
        subscriber.inGap = false;
      } else if (message.id === 1 && message.error) {
        socket.terminate(); // the subscription was refused: try again on a new connection
      }
    });
    socket.on('error', () => settle({ status: undefined, ms: performance.now() - started }));
    socket.on('close', () => {
      settle({ status: undefined, ms: performance.now() - started });
      subscriber.connected = false;
      if (stopped) return;
      reconnects++;
      setTimeout(() => {
        if (!stopped) connect(subscriber);
      }, reconnectDelayMs);
    });
  }

  /**
   * How long a subscriber has been behind the chain: since the first block the observer saw after the
   * subscriber's last head (a second of slack for the feed's own delay). A stopped chain is no lag.
   */
  const lagOf = (subscriber: Subscriber, now: number) => {
    const moved = deps.chainMovedAfter(subscriber.lastHeadAt + 1_000);
    return moved === undefined ? 0 : now - moved;
  };

  const watchdog = setInterval(() => {
    const now = Date.now();
    for (const subscriber of subscribers) {
      if (!subscriber.connected) continue;
      const behindMs = lagOf(subscriber, now);
      if (behindMs > gapMs && !subscriber.inGap) {
        subscriber.inGap = true;
        deps.recorder.wsGap();
      }
      if (behindMs > staleMs) subscriber.socket?.terminate();
    }
  }, 1_000);

  for (const subscriber of subscribers) connect(subscriber);
  return {
    subscribers: deps.count,
    headsReceived: () => heads,
    reconnects: () => reconnects,
    allFresh() {
      const now = Date.now();
      return subscribers.every((subscriber) => subscriber.connected && lagOf(subscriber, now) < 3_000);
    },
    stop() {
      stopped = true;
      clearInterval(watchdog);
      for (const subscriber of subscribers) subscriber.socket?.terminate();
    },
  };
}
