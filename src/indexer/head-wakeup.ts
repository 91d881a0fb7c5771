import type { Logger } from 'pino';
import WebSocket from 'ws';

const reconnectMinMs = 500;
const reconnectMaxMs = 30_000;

export interface HeadWakeup {
  close(): void;
}

/**
 * Calls `onHead` whenever the upstream announces a block (`eth_subscribe newHeads` over its WebSocket),
 * so the indexer reacts at once instead of at its next poll. Reconnects with backoff; polling stays the
 * safety net, so a lost socket only costs latency.
 */
export function watchHeads(options: { wsUrl: string; onHead: () => void; logger: Logger }): HeadWakeup {
  let socket: WebSocket | undefined;
  let closed = false;
  let delayMs = reconnectMinMs;
  let timer: NodeJS.Timeout | undefined;

  const connect = () => {
    if (closed) return;
    const current = new WebSocket(options.wsUrl, { handshakeTimeout: 10_000 });
    socket = current;
    current.on('open', () => {
      delayMs = reconnectMinMs;
      current.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    current.on('message', (data) => {
      const text = data.toString();
      if (text.includes('"eth_subscription"')) options.onHead();
    });
    current.on('error', (error) => options.logger.debug({ err: error }, 'head subscription socket error'));
    current.on('close', () => {
      if (closed) return;
      timer = setTimeout(connect, delayMs);
      delayMs = Math.min(reconnectMaxMs, delayMs * 2);
    });
  };
  connect();

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.terminate();
    },
  };
}
