import type { Logger } from 'pino';
import type { Network } from '../chains/registry.ts';
import { UpstreamRpcError, type UpstreamSocket } from '../chains/upstream-socket.ts';

/** What the feed gives its upstream connection: the same handlers a WebSocket upstream takes. */
export interface UpstreamHandlers {
  onOpen(reconnected: boolean): Promise<void>;
  onNotification(subscription: string, result: unknown): void;
}

export interface PolledUpstreamOptions extends UpstreamHandlers {
  /** A read through the network's pool of HTTP upstreams; rejects with UpstreamRpcError on an error answer. */
  read(method: string, params: unknown[]): Promise<unknown>;
  /** How often `latest` is read: a quarter of the block time, within [250 ms, 3 s]. */
  intervalMs: number;
  logger: Logger;
  chain: string;
  network: string;
}

/** Whether the network lists an upstream WebSocket; without one its feed polls (and serves no pending transactions). */
export const hasWebSocketUpstream = (network: Network) => network.config.upstreams.some((upstream) => upstream.wsUrl);

const headsSubscription = '0x00000000000000000000000000000000';

/** A poll interval for a block time: a head is seen within a quarter of a block on average. */
export const pollIntervalFor = (blockTimeS: number) => Math.min(3_000, Math.max(250, (blockTimeS * 1_000) / 4));

/**
 * The feed's upstream for a network listed with HTTP URLs only: newHeads from reading `latest`
 * through the pool on a timer (a header each time its hash changes; the feed's chain window fetches
 * skipped parents and replays reorgs as it does for a WebSocket node), every other call through the
 * pool. Pending transactions have no HTTP form that every node keeps: refused, as a node would.
 */
export function createPolledUpstream(options: PolledUpstreamOptions): UpstreamSocket {
  let open = false;
  let closed = false;
  let lastHash: string | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** Reads `latest`; a block of another hash than the last one read is new, and goes out unless it is the first. */
  const readLatest = async (announce: boolean) => {
    const block = (await options.read('eth_getBlockByNumber', ['latest', false])) as { hash?: unknown } | null;
    if (typeof block?.hash !== 'string' || block.hash === lastHash) return;
    const first = lastHash === undefined;
    lastHash = block.hash;
    if (announce && !first) options.onNotification(headsSubscription, block);
  };
  const poll = () =>
    readLatest(true)
      .catch((error: unknown) =>
        options.logger.debug({ err: error, chain: options.chain, network: options.network }, 'latest block not read'),
      )
      .finally(() => {
        if (!closed) timer = setTimeout(() => void poll(), options.intervalMs);
      });

  // Where the chain is first (heads come after it, as on a node's newHeads), then the feed subscribes;
  // a failed first read leaves that to the next read that answers.
  const start = async () => {
    await readLatest(false).catch(() => {});
    if (closed) return;
    open = true;
    await options
      .onOpen(false)
      .catch((error: unknown) =>
        options.logger.warn({ err: error, chain: options.chain, network: options.network }, 'polled feed not subscribed'),
      );
    timer = setTimeout(() => void poll(), options.intervalMs);
  };
  void start();

  return {
    isOpen: () => open && !closed,
    async request(method, params) {
      if (method === 'eth_subscribe') {
        if (params[0] !== 'newHeads') {
          throw new UpstreamRpcError({ code: -32601, message: `${String(params[0])} needs an upstream WebSocket (ws_url)` });
        }
        return headsSubscription;
      }
      if (method === 'eth_unsubscribe') return true;
      return options.read(method, params);
    },
    reconnect: () => {},
    async close() {
      closed = true;
      open = false;
      clearTimeout(timer);
    },
  };
}
