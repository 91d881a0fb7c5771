import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * A WebSocket proxy between Blockyard and anvil that counts what passes and can drop every
 * connection: the upstream's side of fan-out and reconnect tests.
 */
export interface WsProxy {
  readonly url: string;
  /** Connections opened through the proxy so far. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  /** eth_subscribe calls that passed, by kind. */
  subscribes(kind: string): number;
  /** Drops every connection at once, as a network failure would. */
  dropAll(): void;
  /**
   * Stops passing subscription notifications on (answers and pings still flow): a node whose
   * subscription died silently.
   */
  mute(): void;
  /** Holds each eth_subscribe on its way to the node for `ms`: an upstream slow to start following. */
  delaySubscribes(ms: number): void;
  close(): Promise<void>;
}

export async function startWsProxy(target: string): Promise<WsProxy> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const pairs = new Set<[WebSocket, WebSocket]>();
  const counts = new Map<string, number>();
  let connections = 0;
  let muted = false;
  let subscribeDelayMs = 0;

  server.on('connection', (client) => {
    connections++;
    const upstream = new WebSocket(target);
    const pair: [WebSocket, WebSocket] = [client, upstream];
    pairs.add(pair);
    const queued: string[] = [];
    client.on('message', (data) => {
      const text = String(data);
      const call = JSON.parse(text) as { method?: string; params?: unknown[] };
      if (call.method === 'eth_subscribe') counts.set(String(call.params?.[0]), (counts.get(String(call.params?.[0])) ?? 0) + 1);
      const pass = () => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
        else queued.push(text);
      };
      if (call.method === 'eth_subscribe' && subscribeDelayMs > 0) setTimeout(pass, subscribeDelayMs);
      else pass();
    });
    upstream.on('open', () => {
      for (const text of queued.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data) => {
      const text = String(data);
      if (muted && text.includes('"eth_subscription"')) return;
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    const end = () => {
      pairs.delete(pair);
      client.terminate();
      upstream.terminate();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => {});
    upstream.on('error', () => {});
  });

  const dropAll = () => {
    for (const [client, upstream] of pairs) {
      client.terminate();
      upstream.terminate();
    }
  };

  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return connections;
    },
    get open() {
      return pairs.size;
    },
    subscribes: (kind) => counts.get(kind) ?? 0,
    dropAll,
    mute: () => {
      muted = true;
    },
    delaySubscribes: (ms) => {
      subscribeDelayMs = ms;
    },
    async close() {
      dropAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
