import type { Logger } from 'pino';
import type { SocketIdentity } from '../chains/socket-identity.ts';
import { createUpstreamSocket } from '../chains/upstream-socket.ts';

export interface HeadWakeup {
  close(): void;
}

/**
 * Calls `onHead` whenever the upstream announces a block (`eth_subscribe newHeads` over its WebSocket),
 * so the indexer reacts at once instead of at its next poll. The socket reconnects by itself, to
 * another of `urls` (the pool's ranking) when the current one fails; polling stays the safety net,
 * so a lost socket only costs latency.
 */
export function watchHeads(options: {
  urls: () => readonly string[];
  onHead: () => void;
  logger: Logger;
  /** What every socket connection must report of its chain before its heads count. */
  identity?: SocketIdentity;
}): HeadWakeup {
  let subscription: string | undefined;
  const socket = createUpstreamSocket({
    urls: options.urls,
    logger: options.logger,
    ...(options.identity ? { identity: options.identity } : {}),
    backoff: { initialMs: 500, maxMs: 30_000 },
    async onOpen() {
      subscription = undefined;
      subscription = String(await socket.request('eth_subscribe', ['newHeads']));
    },
    onNotification(id) {
      if (id === subscription) options.onHead();
    },
  });
  return {
    close() {
      void socket.close();
    },
  };
}
