import type { Gauge } from 'prom-client';
import type { ChainKind } from '../config/chain-settings.ts';
import { type FinalitySettings, type FinalityTag, finalBlockOf, type ReportedFinality } from './final-block.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import type { ServedTip } from './served-tip.ts';

/** A network's `finalized` and `safe` blocks, read from its nodes with the head. */
export interface FinalityTracker {
  /** The best tags the verified upstreams reported: never lower than before (unless the chain started over). */
  reported(): ReportedFinality;
  /** The block the network counts as `tag` now (src/chains/final-block.ts decides). */
  finalBlock(tag?: FinalityTag): number | undefined;
  /** Reads the tags now, as a new head does (tests). */
  readNow(): Promise<void>;
  /** Called after the reported tags moved. Returns the function that stops it. */
  onChange(listener: () => void): () => void;
  stop(): void;
}

export interface FinalityTrackerOptions {
  upstreams: readonly PooledUpstream[];
  kind: ChainKind;
  tip: ServedTip;
  settings: FinalitySettings;
  gauge: Gauge<'chain' | 'network' | 'tag'>;
  labels: { chain: string; network: string };
}

const tags: readonly FinalityTag[] = ['finalized', 'safe'];
/** Each tag's read: the tag's block on EVM; on Solana the slot at the `finalized` / `confirmed` commitment. */
const tagReads: Record<ChainKind, Record<FinalityTag, { method: string; body: string }>> = {
  evm: {
    finalized: { method: 'eth_getBlockByNumber', body: rpcBody('eth_getBlockByNumber', '["finalized",false]') },
    safe: { method: 'eth_getBlockByNumber', body: rpcBody('eth_getBlockByNumber', '["safe",false]') },
  },
  solana: {
    finalized: { method: 'getSlot', body: rpcBody('getSlot', '[{"commitment":"finalized"}]') },
    safe: { method: 'getSlot', body: rpcBody('getSlot', '[{"commitment":"confirmed"}]') },
  },
};
/** A node that refused a tag (a chain without it, an old client) is asked again this much later, not every head. */
const refusedRetryMs = 60_000;

/**
 * With `finality: 'tags'`, reads `eth_getBlockByNumber('finalized'|'safe')` of every verified upstream
 * each time the served tip moves (at most one read under way; a head that arrived meanwhile is read
 * once after it), and keeps the highest answer of each tag. With `'depth'` it reads nothing.
 */
export function createFinalityTracker(options: FinalityTrackerOptions): FinalityTracker {
  const { upstreams, tip, settings, gauge, labels } = options;
  const readsTags = settings.finality === 'tags';
  const refusedUntil = new Map<PooledUpstream, number>();
  let best: { finalized?: number; safe?: number } = {};
  let lastTip = tip.value;
  let reading: Promise<void> | undefined;
  let again = false;
  const listeners = new Set<() => void>();

  const finalBlock = (tag: FinalityTag = 'finalized') => finalBlockOf(settings, tip.value < 0 ? undefined : tip.value, best, tag);
  const publish = () => {
    for (const tag of tags) {
      const block = finalBlock(tag);
      if (block !== undefined) gauge.set({ ...labels, tag }, block);
    }
  };
  const readOnce = async () => {
    const now = Date.now();
    const asked = upstreams.filter(
      (u) => u.identity === 'verified' && u.breaker.isAvailable(performance.now()) && (refusedUntil.get(u) ?? 0) <= now,
    );
    const answers = await Promise.all(asked.map((upstream) => readTags(upstream, tagReads[options.kind])));
    const before = best;
    answers.forEach((answer, index) => {
      if (answer.finalized === undefined && answer.refused) refusedUntil.set(asked[index]!, now + refusedRetryMs);
      for (const tag of tags) {
        const block = answer[tag];
        if (block !== undefined && !(block <= (best[tag] ?? -1))) best = { ...best, [tag]: block };
      }
    });
    if (best !== before) for (const listener of listeners) listener();
  };
  const read = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        await readOnce();
        publish();
      } while (again);
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const stopFollowing = tip.onAdvance((block) => {
    // The tip went back only when the chain started over (a devnet reset): its old tags mean nothing.
    if (block < lastTip) best = {};
    lastTip = block;
    publish();
    if (readsTags) void read();
  });

  return {
    reported: () => best,
    finalBlock,
    readNow: () => (readsTags ? read() : Promise.resolve()),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: stopFollowing,
  };
}

interface TagAnswer {
  finalized?: number;
  safe?: number;
  /** The node answered an error or null for a tag: it has none (a transport failure is not a refusal). */
  refused: boolean;
}

function rpcBody(method: string, params: string): string {
  return `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
}

async function readTags(
  upstream: PooledUpstream,
  reads: Record<FinalityTag, { method: string; body: string }>,
): Promise<TagAnswer> {
  const answer: TagAnswer = { refused: false };
  await Promise.all(
    tags.map(async (tag) => {
      let text: string;
      try {
        text = await upstream.send(reads[tag].body, 1, upstream.costOf(reads[tag].method));
      } catch {
        return; // Unreachable now: the head poll's breaker deals with it; the tag is asked at the next head.
      }
      const block = blockNumberOf(text);
      if (block === undefined) answer.refused = true;
      else answer[tag] = block;
    }),
  );
  return answer;
}

/** The `number` of a block answer (or a slot number); undefined for an error, a null block or anything else. */
function blockNumberOf(text: string): number | undefined {
  try {
    const { result } = JSON.parse(text) as { result?: { number?: unknown } | number | null };
    if (typeof result === 'number' && Number.isSafeInteger(result)) return result;
    const number = typeof result === 'object' ? result?.number : undefined;
    if (typeof number === 'string' && /^0x[0-9a-f]{1,13}$/i.test(number)) return Number.parseInt(number, 16);
  } catch {
    // Not JSON: no tag from this node this time.
  }
  return undefined;
}
