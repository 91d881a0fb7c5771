import type { Registry } from 'prom-client';
import { readNeedOf } from '../../chains/read-need.ts';
import type { Network } from '../../chains/registry.ts';
import type { JsonRpcCall } from '../../jsonrpc/messages.ts';
import { createByteLru } from './byte-lru.ts';
import { createCacheMetrics } from './cache-metrics.ts';
import { type CachedResult, createNetworkCache, type NetworkCache, type SendRpc } from './network-cache.ts';
import { createRedisAnswerStore } from './redis-answer-store.ts';

export interface RpcCache {
  /**
   * Answers `call` from the cache or through `send` (the upstream call, left to the caller), merging
   * identical calls under way. Networks that are not EVM go straight to `send`. `paramsJson`: the
   * call's params as JSON text when the caller has it already (the key is made of it).
   */
  forward(network: Network, call: JsonRpcCall, body: string, send: SendRpc, paramsJson?: string): Promise<string>;
  /** A write reached the network outside the proxy (a bundle): its head-dependent answers are dropped. */
  chainChanged(network: Network): Promise<void>;
  close(): Promise<void>;
}

export interface RpcCacheOptions {
  networks: readonly Network[];
  registry: Registry;
  /** Final results are also shared through Redis when set. */
  redisUrl?: string;
  maxBytes?: number;
}

/** The head watch's poll (head-watch.ts) as the pool routes it: a read at the tip. */
const headPollNeed = readNeedOf('eth_getBlockByNumber', ['latest', false]);

/**
 * A network's own head, from its upstreams' head polls (undefined while none answers): not an
 * `eth_blockNumber` through the pool, which never answers below the served tip. Polled twice: a poll
 * under way may have been sent before the call that changed the head.
 */
async function nodeHeadOf(network: Network): Promise<number | undefined> {
  await network.pool.heads.pollNow();
  await network.pool.heads.pollNow();
  const best = network.pool.heads.bestHead;
  return best >= 0 ? best : undefined;
}

/** Blocks and receipts run to tens of KB: 64 MB holds thousands while keeping the api process small. */
const defaultMaxBytes = 64 * 1024 * 1024;

/** The JSON-RPC cache of every network, one in-process LRU for all. Starts each network's head watch. */
export function createRpcCache({ networks, registry, redisUrl, maxBytes = defaultMaxBytes }: RpcCacheOptions): RpcCache {
  const lru = createByteLru<CachedResult>(maxBytes);
  const metrics = createCacheMetrics(registry, () => ({ entries: lru.entries, bytes: lru.bytes }));
  const redis = redisUrl ? createRedisAnswerStore(redisUrl) : undefined;
  const byNetwork = new Map<Network, NetworkCache>();
  for (const network of networks) {
    if (network.config.kind !== 'evm') continue;
    const { chain, network: name } = network.config;
    byNetwork.set(
      network,
      createNetworkCache({
        config: network.config,
        lru,
        redis,
        metrics: metrics.forNetwork(chain, name),
        sendForHead: (body) => network.pool.send(body, headPollNeed),
        tip: network.pool.tip,
        logsRangeCap: () => network.pool.logsRangeCap(),
        finality: () => network.pool.finality(),
        onFinalityChange: (listener) => network.pool.onFinalityChange(listener),
        nodeHead: () => nodeHeadOf(network),
      }),
    );
  }

  return {
    forward(network, call, body, send, paramsJson) {
      const cache = byNetwork.get(network);
      return cache ? cache.forward(call, body, send, paramsJson) : send(body);
    },
    async chainChanged(network) {
      await byNetwork.get(network)?.chainChanged();
    },
    async close() {
      for (const cache of byNetwork.values()) cache.stop();
      await redis?.close();
    },
  };
}
