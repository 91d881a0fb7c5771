import { type FinalityTag, finalBlockOf, type ReportedFinality } from '../../chains/final-block.ts';
import type { ServedTip } from '../../chains/served-tip.ts';
import type { ChainConfig } from '../../config/chain-settings.ts';
import { type JsonRpcCall, paramsJsonOf } from '../../jsonrpc/messages.ts';
import { formatRpcAnswer, type RawAnswer, splitRpcAnswer } from '../../jsonrpc/raw-answer.ts';
import { spanEvent } from '../../tracing/tracing.ts';
import { forwardGetLogs } from '../get-logs/forward-get-logs.ts';
import { mayChangeState, mayRewriteHistory } from '../method-policy.ts';
import type { SendRpc } from '../send-rpc.ts';
import type { ByteLru } from './byte-lru.ts';
import type { NetworkCacheMetrics } from './cache-metrics.ts';
import { type CacheScope, cacheScopeFor, isCacheableMethod, scopeOfResult } from './cache-policy.ts';
import { createHeadWatch } from './head-watch.ts';
import { createInflight } from './inflight.ts';
import type { RedisAnswerStore } from './redis-answer-store.ts';

export type { SendRpc, SentCall } from '../send-rpc.ts';

/** A stored result: its raw JSON text, and for head-dependent entries the head epoch and expiry. */
export interface CachedResult {
  readonly raw: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

/** The cache's outcome, as an event on the call's span (tracing on); made once, shared by every call. */
const memoryHit = { 'blockyard.cache': 'hit', 'blockyard.cache.store': 'memory' } as const;
const redisHit = { 'blockyard.cache': 'hit', 'blockyard.cache.store': 'redis' } as const;
const cacheMiss = { 'blockyard.cache': 'miss' } as const;
/** The same call was already on its way upstream: this one waits for its answer. */
const mergedLookup = { 'blockyard.cache': 'merged' } as const;
/** A cacheable method whose answer is not stored (a block above the tip, a pending tag). */
const notStored = { 'blockyard.cache': 'not_stored' } as const;

/** The epoch of results that can no longer change. */
const finalEpoch = -1;

export interface NetworkCache {
  forward(call: JsonRpcCall, body: string, send: SendRpc, paramsJson?: string): Promise<string>;
  /** The chain changed by a path other than this cache (the bundler sent a bundle): drop head answers. */
  chainChanged(): Promise<void>;
  stop(): void;
}

export interface NetworkCacheOptions {
  config: ChainConfig;
  /** Shared by every network (keys are prefixed with the network), so one bound holds for the process. */
  lru: ByteLru<CachedResult>;
  redis?: RedisAnswerStore;
  metrics: NetworkCacheMetrics;
  /** How the head watch reaches the upstream. */
  sendForHead: (body: string) => Promise<string>;
  /** The network's served tip: every head-dependent answer is dropped when it advances. */
  tip: ServedTip;
  /** The eth_getLogs range cap the upstreams taught (undefined: none known; `get_logs_max_range` then). */
  logsRangeCap(): number | undefined;
  /** The `finalized`/`safe` blocks the network's nodes reported (the pool reads them with the head). */
  finality(): ReportedFinality;
  /** Registers a call after those tags moved; answers the function that stops it. */
  onFinalityChange(listener: () => void): () => void;
  /** The nodes' own head now (`eth_blockNumber`), undefined when none answers. */
  nodeHead(): Promise<number | undefined>;
}

/** The call's way upstream: `stored` when its answer may enter the cache. */
type Upstream = (body: string, stored: boolean) => Promise<string>;

interface Shared {
  readonly text: string;
  readonly answer: RawAnswer | undefined;
}

/**
 * One network's cache: answers what is cached, merges identical calls under way, stores results by
 * their scope, and evicts every head-dependent result when the served tip advances or the head watch
 * sees the head move, reorg or not (final results are below any fork by definition), so a hit is never
 * older than a tip already served. Also routes eth_getLogs through range splitting.
 */
export function createNetworkCache(options: NetworkCacheOptions): NetworkCache {
  const { config, lru, redis, metrics, sendForHead, tip } = options;
  const prefix = `${config.chain}/${config.network}\n`;
  const blockTimeMs = config.blockTimeS * 1000;
  const inflight = createInflight<Shared>();
  const logsMaxRange = () => options.logsRangeCap() ?? config.getLogsMaxRange;
  let epoch = 0;
  let headKeys = new Set<string>();
  /**
   * Bumped by a node-control call (a devnet's `evm_revert`, `anvil_reset`, `anvil_setChainId`…), which
   * may rewrite blocks the network counted as final: every key carries it, so nothing stored before is
   * found again (the old entries age out of the LRU).
   */
  let generation = 0;
  const keyPrefix = () => (generation === 0 ? prefix : `${prefix}${generation}\n`);

  const evictHeadEntries = () => {
    epoch++;
    for (const key of headKeys) lru.delete(key);
    headKeys = new Set();
  };
  const head = createHeadWatch({
    send: sendForHead,
    // Half a block: a head-dependent answer outlives its block by at most half a block time.
    intervalMs: Math.min(Math.max(blockTimeMs / 2, 250), 30_000),
    onChange(change) {
      if (change === 'reorg') metrics.reorg();
      evictHeadEntries();
    },
  });
  const stopFollowingTip = tip.onAdvance(evictHeadEntries);
  // The tags are read just after the tip moved: an answer that resolved `finalized` in between is stale.
  const stopFollowingFinality = options.onFinalityChange(evictHeadEntries);
  /** The newest block known: the served tip or the head watch's head, whichever is newer (they poll apart). */
  const headNumber = () => {
    const watched = head.current()?.number ?? -1;
    const newest = Math.max(tip.value, watched);
    return newest >= 0 ? newest : undefined;
  };

  /**
   * After a call that may have rewound the chain: the served tip and the head watch start again from
   * the node's head, so `eth_blockNumber` and `latest` reads answer the rewound chain at once rather
   * than the old tip (and null blocks above the new head) until the tip's own reset, 30 s later.
   */
  const rewound = async () => {
    const nodeHead = await options.nodeHead();
    if (nodeHead !== undefined && nodeHead < tip.value) tip.reset(nodeHead);
    await head.restart();
  };

  const finalBlock = (tag?: FinalityTag) => finalBlockOf(config, headNumber(), options.finality(), tag);

  // An eth_blockNumber answer that moved the served tip itself (the pool raises it) is the tip: current.
  const isTheTip = (key: string, raw: string) =>
    key.startsWith(`${keyPrefix()}eth_blockNumber\n`) &&
    raw.startsWith('"0x') &&
    Number.parseInt(raw.slice(3, -1), 16) >= tip.value;

  const fetchAndStore = async (key: string, scope: CacheScope, idJson: string, body: string, upstream: Upstream) => {
    const startEpoch = epoch;
    if (redis && scope !== 'head') {
      const raw = await redis.get(key);
      if (raw !== undefined) {
        metrics.hit('redis');
        spanEvent('cache lookup', redisHit);
        lru.set(key, { raw, epoch: finalEpoch, expiresAt: 0 }, raw.length);
        const answer: RawAnswer = { kind: 'result', raw };
        return { text: formatRpcAnswer(idJson, answer), answer };
      }
    }
    metrics.miss();
    spanEvent('cache lookup', cacheMiss);
    // Stored answers pass the integrity checks first (the pool asks another upstream when one fails).
    const text = await upstream(body, true);
    const answer = splitRpcAnswer(text, idJson);
    if (answer?.kind !== 'result' || answer.raw === 'null') return { text, answer };
    const stored = scope === 'by-result' ? scopeOfResult(answer.raw, finalBlock()) : scope;
    if (stored === 'final') {
      lru.set(key, { raw: answer.raw, epoch: finalEpoch, expiresAt: 0 }, answer.raw.length);
      redis?.set(key, answer.raw);
    } else if (stored === 'head' && (epoch === startEpoch || isTheTip(key, answer.raw))) {
      lru.set(key, { raw: answer.raw, epoch, expiresAt: Date.now() + blockTimeMs }, answer.raw.length);
      headKeys.add(key);
    }
    return { text, answer };
  };

  return {
    async forward(call, body, send, paramsJson = paramsJsonOf(call)) {
      const method = call.method;
      if (!isCacheableMethod(method)) {
        if (!mayChangeState(method)) return send(body);
        const text = await send(body);
        if (mayRewriteHistory(method)) {
          generation++;
          await rewound();
        }
        evictHeadEntries();
        void head.refresh();
        return text;
      }
      const key = `${keyPrefix()}${method}\n${paramsJson ?? ''}`;
      const cached = lru.get(key);
      if (cached !== undefined && (cached.epoch === finalEpoch || (cached.epoch === epoch && Date.now() < cached.expiresAt))) {
        metrics.hit('memory');
        spanEvent('cache lookup', memoryHit);
        return formatRpcAnswer(call.id === undefined ? 'null' : JSON.stringify(call.id), { kind: 'result', raw: cached.raw });
      }
      const idJson = JSON.stringify(call.id ?? null);
      const known = headNumber();
      const final = finalBlock();
      const tags = { finalized: final, safe: finalBlock('safe') };
      const upstream: Upstream =
        method === 'eth_getLogs'
          ? (text, stored) =>
              forwardGetLogs({ call, idJson, body: text, head: known, tags, maxRange: logsMaxRange, send, stored })
          : (text, stored) => send(text, { params: call.params, stored });
      const scope = cacheScopeFor(method, call.params, final);
      if (scope === 'none') {
        spanEvent('cache lookup', notStored);
        return upstream(body, false);
      }
      const joined = inflight.get(key);
      if (joined) {
        metrics.merged();
        spanEvent('cache lookup', mergedLookup);
        const shared = await joined;
        return shared.answer ? formatRpcAnswer(idJson, shared.answer) : upstream(body, false);
      }
      return (await inflight.run(key, () => fetchAndStore(key, scope, idJson, body, upstream))).text;
    },
    async chainChanged() {
      evictHeadEntries();
      await head.refresh();
    },
    stop() {
      head.stop();
      stopFollowingTip();
      stopFollowingFinality();
    },
  };
}
