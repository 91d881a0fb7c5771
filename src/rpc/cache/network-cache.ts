import { formatRpcAnswer, type RawAnswer, splitRpcAnswer } from '../../chains/raw-answer.ts';
import type { ChainConfig } from '../../config/chain-settings.ts';
import { forwardGetLogs } from '../get-logs/forward-get-logs.ts';
import { type JsonRpcCall, paramsJsonOf } from '../jsonrpc.ts';
import { mayChangeState } from '../method-policy.ts';
import type { ByteLru } from './byte-lru.ts';
import type { NetworkCacheMetrics } from './cache-metrics.ts';
import { type CacheScope, cacheScopeFor, isCacheableMethod, scopeOfResult } from './cache-policy.ts';
import { createHeadWatch } from './head-watch.ts';
import { createInflight } from './inflight.ts';
import type { RedisAnswerStore } from './redis-answer-store.ts';

/** Sends a JSON-RPC body upstream and returns the answer's text (errors included, never thrown for the chain). */
export type SendRpc = (body: string) => Promise<string>;

/** A stored result: its raw JSON text, and for head-dependent entries the head epoch and expiry. */
export interface CachedResult {
  readonly raw: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

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
  sendForHead: SendRpc;
}

interface Shared {
  readonly text: string;
  readonly answer: RawAnswer | undefined;
}

/**
 * One network's cache: answers what is cached, merges identical calls under way, stores results by
 * their scope, and evicts every head-dependent result when the head moves, reorg or not (final results
 * are below any fork by definition). Also routes eth_getLogs through range splitting.
 */
export function createNetworkCache({ config, lru, redis, metrics, sendForHead }: NetworkCacheOptions): NetworkCache {
  const prefix = `${config.chain}/${config.network}\n`;
  const blockTimeMs = config.blockTimeS * 1000;
  const depth = config.finalityDepth;
  const inflight = createInflight<Shared>();
  let epoch = 0;
  let headKeys = new Set<string>();

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

  const fetchAndStore = async (key: string, scope: CacheScope, idJson: string, body: string, upstream: SendRpc) => {
    const startEpoch = epoch;
    if (redis && scope !== 'head') {
      const raw = await redis.get(key);
      if (raw !== undefined) {
        metrics.hit('redis');
        lru.set(key, { raw, epoch: finalEpoch, expiresAt: 0 }, raw.length);
        const answer: RawAnswer = { kind: 'result', raw };
        return { text: formatRpcAnswer(idJson, answer), answer };
      }
    }
    metrics.miss();
    const text = await upstream(body);
    const answer = splitRpcAnswer(text, idJson);
    if (answer?.kind !== 'result' || answer.raw === 'null') return { text, answer };
    const stored = scope === 'by-result' ? scopeOfResult(answer.raw, head.current()?.number, depth) : scope;
    if (stored === 'final') {
      lru.set(key, { raw: answer.raw, epoch: finalEpoch, expiresAt: 0 }, answer.raw.length);
      redis?.set(key, answer.raw);
    } else if (stored === 'head' && epoch === startEpoch) {
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
        evictHeadEntries();
        void head.refresh();
        return text;
      }
      const key = `${prefix}${method}\n${paramsJson ?? ''}`;
      const cached = lru.get(key);
      if (cached !== undefined && (cached.epoch === finalEpoch || (cached.epoch === epoch && Date.now() < cached.expiresAt))) {
        metrics.hit('memory');
        return formatRpcAnswer(call.id === undefined ? 'null' : JSON.stringify(call.id), { kind: 'result', raw: cached.raw });
      }
      const idJson = JSON.stringify(call.id ?? null);
      const headNumber = head.current()?.number;
      const upstream: SendRpc =
        method === 'eth_getLogs'
          ? (text) => forwardGetLogs({ call, idJson, body: text, head: headNumber, maxRange: config.getLogsMaxRange, send })
          : send;
      const scope = cacheScopeFor(method, call.params, headNumber, depth);
      if (scope === 'none') return upstream(body);
      const joined = inflight.get(key);
      if (joined) {
        metrics.merged();
        const shared = await joined;
        return shared.answer ? formatRpcAnswer(idJson, shared.answer) : upstream(body);
      }
      return (await inflight.run(key, () => fetchAndStore(key, scope, idJson, body, upstream))).text;
    },
    async chainChanged() {
      evictHeadEntries();
      await head.refresh();
    },
    stop: () => head.stop(),
  };
}
