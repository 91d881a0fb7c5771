import { Counter, Gauge, type Registry } from 'prom-client';

export type CacheLayer = 'memory' | 'redis';

/** Counters for one network, bound once so the hot path only increments. */
export interface NetworkCacheMetrics {
  hit(layer: CacheLayer): void;
  miss(): void;
  merged(): void;
  reorg(): void;
}

export interface CacheMetrics {
  forNetwork(chain: string, network: string): NetworkCacheMetrics;
}

/**
 * Cache metrics on `registry`. Hit ratio: `hits / (hits + misses)`; merged calls (joined an identical
 * call under way) are neither. Size gauges are read from `size()` at scrape time.
 */
export function createCacheMetrics(registry: Registry, size: () => { entries: number; bytes: number }): CacheMetrics {
  const registers = [registry];
  const hits = new Counter({
    name: 'blockyard_rpc_cache_hits_total',
    help: 'Cacheable JSON-RPC calls answered from the cache, by layer',
    labelNames: ['chain', 'network', 'layer'],
    registers,
  });
  const misses = new Counter({
    name: 'blockyard_rpc_cache_misses_total',
    help: 'Cacheable JSON-RPC calls that went to the upstream',
    labelNames: ['chain', 'network'],
    registers,
  });
  const merged = new Counter({
    name: 'blockyard_rpc_cache_merged_total',
    help: 'JSON-RPC calls that joined an identical call already under way',
    labelNames: ['chain', 'network'],
    registers,
  });
  const reorgs = new Counter({
    name: 'blockyard_rpc_cache_reorgs_total',
    help: 'Reorgs seen at the head (non-final cache entries evicted)',
    labelNames: ['chain', 'network'],
    registers,
  });
  new Gauge({
    name: 'blockyard_rpc_cache_entries',
    help: 'Entries in the in-process JSON-RPC cache',
    registers,
    collect() {
      this.set(size().entries);
    },
  });
  new Gauge({
    name: 'blockyard_rpc_cache_bytes',
    help: 'Approximate size of the in-process JSON-RPC cache',
    registers,
    collect() {
      this.set(size().bytes);
    },
  });

  return {
    forNetwork(chain, network) {
      const memoryHits = hits.labels(chain, network, 'memory');
      const redisHits = hits.labels(chain, network, 'redis');
      const miss = misses.labels(chain, network);
      const merge = merged.labels(chain, network);
      const reorg = reorgs.labels(chain, network);
      return {
        hit: (layer) => (layer === 'memory' ? memoryHits : redisHits).inc(),
        miss: () => miss.inc(),
        merged: () => merge.inc(),
        reorg: () => reorg.inc(),
      };
    },
  };
}
