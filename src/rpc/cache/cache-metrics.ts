import { Counter, Gauge, type Registry } from 'prom-client';
import { CounterChildren } from '../../observability/counter-children.ts';

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
  // Every cacheable call counts a hit, a miss or a merge: children that only add, flushed when read.
  const hits = new CounterChildren(['chain', 'network', 'layer'] as const);
  hits.attach(
    new Counter({
      name: 'blockyard_rpc_cache_hits_total',
      help: 'Cacheable JSON-RPC calls answered from the cache, by layer',
      labelNames: ['chain', 'network', 'layer'],
      registers,
      collect: () => hits.flush(),
    }),
  );
  const misses = new CounterChildren(['chain', 'network'] as const);
  misses.attach(
    new Counter({
      name: 'blockyard_rpc_cache_misses_total',
      help: 'Cacheable JSON-RPC calls that went to the upstream',
      labelNames: ['chain', 'network'],
      registers,
      collect: () => misses.flush(),
    }),
  );
  const merged = new CounterChildren(['chain', 'network'] as const);
  merged.attach(
    new Counter({
      name: 'blockyard_rpc_cache_merged_total',
      help: 'JSON-RPC calls that joined an identical call already under way',
      labelNames: ['chain', 'network'],
      registers,
      collect: () => merged.flush(),
    }),
  );
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
      const memoryHits = hits.child(chain, network, 'memory');
      const redisHits = hits.child(chain, network, 'redis');
      const miss = misses.child(chain, network);
      const merge = merged.child(chain, network);
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
