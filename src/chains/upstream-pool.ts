import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { UpstreamConfig } from '../config/chain-settings.ts';
import { UpstreamError } from '../core/upstream-error.ts';
import { judgeAnswer, servedBlockNumber } from './answer-checks.ts';
import { breakersOpenError } from './breakers-open.ts';
import { createFilterTags, type FilterTags, withCreatedFilterId, withFilterParam } from './filter-ids.ts';
import type { FinalityTag, ReportedFinality } from './final-block.ts';
import { createFinalityTracker } from './finality-tracker.ts';
import { createHeadTracker, type HeadTracker } from './head-tracker.ts';
import { sendWithHeadWitness, witnessedBlock } from './head-witness.ts';
import { type AttemptState, sendHedged } from './hedged-send.ts';
import { checkIdentity, type ExpectedIdentity } from './identity-check.ts';
import { learnRangeCap } from './logs-range-cap.ts';
import { callsOf, costOn, type NoPick, pickUpstream, type RoutingView } from './pick-upstream.ts';
import { createPooledUpstreams } from './pool-members.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import { anyRead, type ReadNeed } from './read-need.ts';
import { isRetryable, RetryableRpcError } from './retryable.ts';
import { createServedTip, type ServedTip } from './served-tip.ts';
import type { SocketIdentity } from './socket-identity.ts';
import type { BudgetLimits } from './upstream-budget.ts';
import type { UpstreamClient } from './upstream-client.ts';
import type { UpstreamCondition } from './upstream-condition.ts';
import { createUpstreamMetrics, type UpstreamMetrics } from './upstream-metrics.ts';
import type { UpstreamPoolOptions } from './upstream-pool-options.ts';
import { broadcastWrite } from './write-broadcast.ts';

export type { UpstreamPoolOptions } from './upstream-pool-options.ts';

export interface UpstreamStats {
  readonly upstream: string;
  readonly head: number;
  readonly lag: number;
  readonly ewmaMs: number;
  readonly p95Ms: number;
  readonly errorRate: number;
  readonly samples: number;
  readonly breaker: string;
  readonly inFlight: number;
  readonly tier: string;
  readonly identity: string;
  readonly condition: UpstreamCondition;
  readonly budget: BudgetLimits;
  /** The learnt or configured eth_getLogs range cap (null: none known). */
  readonly logsRangeCap: number | null;
}

/** A network's upstreams behind one client: reads are routed, failed over and hedged; writes go to all. */
export interface UpstreamPool extends UpstreamClient {
  /**
   * Sends a read to the upstream best able to answer `need` (default: a read at the tip); asks another
   * on retryable errors and on answers of a node that lacks the block; never answers a tip lower than
   * one already served.
   */
  send(body: string, need?: ReadNeed): Promise<string>;
  /** Sends a write (e.g. `eth_sendRawTransaction`) to every healthy upstream; the first success answers. */
  broadcast(body: string): Promise<string>;
  /** Whether at least one verified upstream's breaker lets requests through. */
  hasHealthyUpstream(): boolean;
  /**
   * WebSocket URLs of the verified upstreams that have one, best first: breaker closed and caught up,
   * then lagging, then failing; by latency within each rank. A subscription feed connects to the first.
   */
  socketUrls(): string[];
  /** What a WebSocket to one of `socketUrls()` must report of itself; its refusals count in this pool's metrics. */
  socketIdentity(): SocketIdentity;
  stats(): UpstreamStats[];
  readonly heads: HeadTracker;
  /** The newest block served from this network: never goes back. */
  readonly tip: ServedTip;
  /** What every upstream must report of itself. */
  readonly identity: ExpectedIdentity;
  /** Resolves once every upstream's identity was checked at least once (verified, refused, or no answer). */
  identified(): Promise<void>;
  /** The widest eth_getLogs range worth one call: the largest cap the upstreams taught (undefined: none known). */
  logsRangeCap(): number | undefined;
  /** The best `finalized`/`safe` blocks the nodes reported, read with the head (`finality: 'tags'` only). */
  finality(): ReportedFinality;
  /** The newest block counted as `tag` (default `finalized`) by the network's finality model; undefined while unknown. */
  finalBlock(tag?: FinalityTag): number | undefined;
  /** Called after the reported tags moved (answers that resolved a tag are stale). Returns the function that stops it. */
  onFinalityChange(listener: () => void): () => void;
}

/** How long a read waits for the first identity checks of a pool that has no verified upstream yet. */
const identityWaitMs = 5_000;

/** What a read needs to be routed: built once per pool, shared by every call. */
interface PoolState {
  readonly upstreams: readonly PooledUpstream[];
  readonly view: RoutingView;
  readonly tip: ServedTip;
  readonly metrics: UpstreamMetrics;
  readonly labels: { chain: string; network: string };
  readonly maxAttempts: number;
  readonly hedgeDelayMs: (upstream: PooledUpstream) => number;
  readonly onHedge: () => void;
  /** Tags naming each filter's node in its id: absent for a single upstream, which holds every filter. */
  readonly filterTags: FilterTags<PooledUpstream> | undefined;
  /** eth_getLogs near the tip goes with a head witness (src/chains/head-witness.ts). */
  readonly headWitness: boolean;
  firstChecks: Promise<void>;
}

export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const { chain, network, maxLagBlocks = 3 } = options;
  if (options.upstreams.length === 0 || options.upstreams.length > 30) throw new Error('a pool holds 1 to 30 upstreams');
  const metrics = options.metrics ?? createUpstreamMetrics(new Registry());
  const logger = options.logger ?? pino({ level: 'silent' });
  const labels = { chain, network };
  // A node back from a stall is checked and polled at once, not at the next poll: until then it serves nothing.
  const pollNow = () => void heads.pollNow();
  const upstreams = createPooledUpstreams(options, metrics, labels, logger.child({ component: 'upstreams' }), pollNow);
  const identity: ExpectedIdentity =
    options.kind === 'solana' ? { kind: 'solana', genesisHash: options.genesisHash } : { kind: 'evm', chainId: options.chainId };
  const tip = createServedTip();
  const check = (upstream: PooledUpstream) => checkIdentity(upstream, identity, metrics, labels);
  const heads = createHeadTracker({
    upstreams,
    kind: options.kind ?? 'evm',
    intervalMs: options.headPollMs,
    metrics,
    labels,
    tip,
    maxLagBlocks,
    checkIdentity: check,
    logger,
  });
  const finality = createFinalityTracker({
    upstreams,
    kind: options.kind ?? 'evm',
    tip,
    settings: options.finality ?? { finality: 'depth', finalityDepth: 0 },
    gauge: metrics.finalBlock,
    labels,
  });
  const minSamples = options.hedge?.minSamples ?? 20;
  const floorMs = options.hedge?.floorMs ?? 10;
  const hedgeCounter = metrics.hedges.labels(labels);
  const view: RoutingView = {
    get tip() {
      return tip.value;
    },
    maxLagBlocks,
  };
  const state: PoolState = {
    upstreams,
    view,
    tip,
    metrics,
    labels,
    maxAttempts: options.maxAttempts ?? 3,
    hedgeDelayMs: (upstream) =>
      upstreams.length < 2 || upstream.latency.samples < minSamples ? -1 : Math.max(floorMs, upstream.latency.p95Ms()),
    onHedge: () => hedgeCounter.inc(),
    filterTags: upstreams.length < 2 ? undefined : createFilterTags(upstreams, (upstream) => upstream.url),
    headWitness: options.headWitness === true,
    firstChecks: heads.firstPoll,
  };

  return {
    url: upstreams[0]!.url,
    heads,
    tip,
    identity,
    identified: () => state.firstChecks,
    send: (body, need = anyRead) => sendRead(state, body, need),
    broadcast: (body) => broadcastToAvailable(state, body),
    hasHealthyUpstream: () => upstreams.some((u) => u.identity === 'verified' && u.breaker.state === 'closed'),
    socketUrls: () => rankSocketUrls(options.upstreams, upstreams, tip.value - maxLagBlocks),
    socketIdentity: () => ({
      expected: identity,
      network: `${chain}/${network}`,
      refused: (wsUrl) => {
        const index = options.upstreams.findIndex((config) => config.wsUrl === wsUrl);
        const upstream = index < 0 ? new URL(wsUrl).host : upstreams[index]!.label;
        metrics.identityRefusals.inc({ ...labels, upstream });
      },
    }),
    stats: () => upstreams.map((upstream) => statsOf(upstream, heads.bestHead)),
    logsRangeCap: () => largestKnownCap(upstreams),
    finality: () => finality.reported(),
    finalBlock: (tag) => finality.finalBlock(tag),
    onFinalityChange: (listener) => finality.onChange(listener),
    async close() {
      heads.stop();
      finality.stop();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    },
  };
}

async function sendRead(pool: PoolState, sent: string, need: ReadNeed): Promise<string> {
  // A filter's id names the node holding it: its calls go to that node only, while it can take calls;
  // else (an id no upstream here tagged, or its node down) to any node, whose "filter not found" tells
  // the client to make another.
  const tagged = need.filter && 'id' in need.filter ? pool.filterTags?.decode(need.filter.id) : undefined;
  const body = tagged ? withFilterParam(sent, tagged.id) : sent;
  const held = tagged?.upstream;
  const home = held && 'bit' in pickUpstream([held], need, pool.view, 0) ? held : undefined;
  const othersThanHome = home ? pool.upstreams.reduce((bits, upstream) => bits | upstream.bit, 0) & ~home.bit : 0;
  const attempt: AttemptState = { tried: othersThanHome, answeredBy: undefined };
  const pick = (tried: number) => {
    const picked = pickUpstream(pool.upstreams, need, pool.view, tried);
    return 'bit' in picked ? picked : undefined;
  };
  let failure: unknown;
  let lastAnswer: string | undefined;
  let corrupt = false;
  let noPick: NoPick | undefined;
  // Each upstream is asked once at most; failures count against `maxAttempts`, answers that lack the
  // block or fail a check do not (another node is asked while one is left).
  for (let failures = 0; failures < pool.maxAttempts; ) {
    let picked = pickUpstream(pool.upstreams, need, pool.view, attempt.tried);
    if (!('bit' in picked) && attempt.tried === othersThanHome && (await waitForFirstChecks(pool))) {
      picked = pickUpstream(pool.upstreams, need, pool.view, attempt.tried);
    }
    if (!('bit' in picked)) {
      noPick = picked;
      break;
    }
    const upstream = picked;
    attempt.tried |= upstream.bit;
    attempt.answeredBy = upstream;
    let text: string;
    try {
      // A filter lives on one node: a hedge would install a second one, or ask a node that has none.
      const delay = failures + 1 < pool.maxAttempts && !need.filter ? pool.hedgeDelayMs(upstream) : -1;
      const witnessed = pool.headWitness ? witnessedBlock(need, pool.tip.value) : -1;
      const send = (target: PooledUpstream) =>
        witnessed >= 0
          ? sendWithHeadWitness(target, body, need, {
              block: witnessed,
              resend: pool.upstreams.length === 1 || target.head >= witnessed,
              onBehind: () => pool.metrics.missingAnswers.inc({ ...pool.labels, upstream: target.label }),
            })
          : target.send(body, callsOf(need), costOn(target, need));
      text =
        delay < 0
          ? await send(upstream)
          : await sendHedged({
              first: upstream,
              send,
              delayMs: delay,
              state: attempt,
              pick,
              onHedge: pool.onHedge,
              refuses: (answer, target) => judgeAnswer(answer, need, target, pool.tip.value) !== undefined,
            });
    } catch (error) {
      if (!isRetryable(error)) throw error;
      failure = error;
      failures++;
      continue;
    }
    const answeredBy = attempt.answeredBy ?? upstream;
    const verdict = judgeAnswer(text, need, answeredBy, pool.tip.value);
    if (verdict === undefined) {
      if (need.filter && 'create' in need.filter && pool.filterTags) {
        const tags = pool.filterTags;
        return withCreatedFilterId(text, (id) => tags.encode(id, answeredBy));
      }
      return need.method === 'eth_blockNumber' ? servedBlockNumber(text, pool.tip) : text;
    }
    if (verdict.kind === 'too_wide') {
      learnRangeCap(answeredBy, verdict.detail);
      lastAnswer = text;
      continue;
    }
    if (verdict.kind === 'missing') {
      pool.metrics.missingAnswers.inc({ ...pool.labels, upstream: answeredBy.label });
      if (need.block >= 0 && answeredBy.head >= need.block) answeredBy.head = need.block - 1;
      lastAnswer = text;
    } else {
      answeredBy.markBadAnswer(verdict.detail);
      corrupt = true;
    }
  }
  // A node's own answer (a null no other node could better, "header not found" everywhere) says more than our error.
  if (lastAnswer !== undefined) return lastAnswer;
  if (corrupt) throw new UpstreamError('integrity', 'every upstream asked answered data that fails its integrity checks');
  if (failure instanceof RetryableRpcError && failure.kind === 'behind') return failure.text;
  throw noUpstreamError(pool, noPick, failure);
}

/** Before the first identity checks end, no upstream is verified: a read waits for them (bounded). */
async function waitForFirstChecks(pool: PoolState): Promise<boolean> {
  if (!pool.upstreams.some((upstream) => upstream.identity === 'unverified')) return false;
  if (pool.upstreams.some((upstream) => upstream.identity === 'verified')) return false;
  await settledOrAfter(pool.firstChecks, identityWaitMs);
  return pool.upstreams.some((upstream) => upstream.identity === 'verified');
}

async function settledOrAfter(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Why a read could not be answered, as the error its caller maps to an answer. */
function noUpstreamError(pool: PoolState, noPick: NoPick | undefined, failure: unknown): UpstreamError {
  const { upstreams, labels, metrics } = pool;
  const name = `${labels.chain}/${labels.network}`;
  if (upstreams.every((upstream) => upstream.identity === 'refused')) {
    return new UpstreamError('wrong_chain', `every upstream of ${name} serves another chain`);
  }
  const rateLimited = failure instanceof UpstreamError && failure.reason === 'rate_limited';
  if (noPick?.budgetWaitMs !== undefined || (rateLimited && noPick !== undefined)) {
    metrics.budgetExhausted.inc(labels);
    const retryAfterMs = noPick?.budgetWaitMs ?? (failure as UpstreamError).retryAfterMs ?? 1000;
    return new UpstreamError('rate_limited', `every upstream of ${name} is out of budget`, { retryAfterMs });
  }
  if (noPick !== undefined && !noPick.anyServes && upstreams.some((u) => u.identity === 'verified')) {
    return new UpstreamError('no_capable_upstream', `no upstream of ${name} serves this method`);
  }
  if (failure instanceof UpstreamError && failure.reason !== 'circuit_open') return failure;
  const open = breakersOpenError(name, upstreams, performance.now());
  if (open !== undefined) return open;
  return new UpstreamError(
    upstreams.find((u) => u.lastFailure !== undefined)?.lastFailure ?? 'connection',
    'no upstream available',
  );
}

/** A write goes to every verified upstream: right after start, once their first checks are done (bounded). */
async function broadcastToAvailable(pool: PoolState, body: string): Promise<string> {
  const { upstreams } = pool;
  if (upstreams.some((upstream) => upstream.identity === 'unverified')) await settledOrAfter(pool.firstChecks, identityWaitMs);
  const now = performance.now();
  const targets = upstreams.filter((u) => u.identity === 'verified' && u.breaker.isAvailable(now));
  if (targets.length === 0) {
    throw (
      breakersOpenError(`${pool.labels.chain}/${pool.labels.network}`, upstreams, now) ??
      new UpstreamError('connection', 'no upstream available')
    );
  }
  return broadcastWrite(targets, body);
}

function largestKnownCap(upstreams: readonly PooledUpstream[]): number | undefined {
  let cap: number | undefined;
  for (const upstream of upstreams) {
    if (upstream.identity !== 'verified' || !Number.isFinite(upstream.logsRangeCap)) continue;
    cap = cap === undefined ? upstream.logsRangeCap : Math.max(cap, upstream.logsRangeCap);
  }
  return cap;
}

function rankSocketUrls(configs: readonly UpstreamConfig[], upstreams: readonly PooledUpstream[], caughtUp: number): string[] {
  const rank = (upstream: PooledUpstream) =>
    (upstream.breaker.state === 'closed' ? 0 : 2) + (upstream.head >= 0 && upstream.head < caughtUp ? 1 : 0);
  return upstreams
    .filter((upstream) => configs[upstream.index]!.wsUrl !== undefined && upstream.identity !== 'refused')
    .sort((a, b) => rank(a) - rank(b) || a.latency.ewmaMs - b.latency.ewmaMs)
    .map((upstream) => configs[upstream.index]!.wsUrl!);
}

function statsOf(upstream: PooledUpstream, bestHead: number): UpstreamStats {
  return {
    upstream: upstream.label,
    head: upstream.head,
    lag: upstream.head < 0 ? 0 : bestHead - upstream.head,
    ewmaMs: upstream.latency.ewmaMs,
    p95Ms: upstream.latency.p95Ms(),
    errorRate: upstream.latency.errorRate,
    samples: upstream.latency.samples,
    breaker: upstream.breaker.state,
    inFlight: upstream.inFlight,
    tier: upstream.tier,
    identity: upstream.identity,
    condition: upstream.condition.current,
    budget: upstream.budget.limits(),
    logsRangeCap: Number.isFinite(upstream.logsRangeCap) ? upstream.logsRangeCap : null,
  };
}
