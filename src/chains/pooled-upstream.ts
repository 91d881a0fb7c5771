import type { Logger } from 'pino';
import type { UpstreamTier } from '../config/chain-settings.ts';
import { UpstreamError, type UpstreamFailure } from '../core/upstream-error.ts';
import { inChildSpan, tracingOn } from '../tracing/tracing.ts';
import { type CircuitBreaker, type CircuitBreakerOptions, createCircuitBreaker } from './circuit-breaker.ts';
import { createLatencyStats, type LatencyStats } from './latency-stats.ts';
import type { MethodFilter } from './method-filter.ts';
import { answerError, RetryableRpcError, retryableKindOf } from './retryable.ts';
import { createStallWatch } from './stall-watch.ts';
import { createUpstreamBudget, type UpstreamBudget } from './upstream-budget.ts';
import type { UpstreamClient } from './upstream-client.ts';
import { type ConditionMonitor, createConditionMonitor } from './upstream-condition.ts';
import { breakerStateValue, type UpstreamMetrics } from './upstream-metrics.ts';

export type IdentityState = 'unverified' | 'verified' | 'refused';

/** One node of a pool: its client, breaker, latency, head, budget, identity and what it can serve. */
export interface PooledUpstream {
  readonly index: number;
  /** Bit of this upstream in a pool's "already tried" mask. */
  readonly bit: number;
  /** Its name, else host (and port) only: a URL may carry an API key, metrics and logs must not. */
  readonly label: string;
  readonly url: string;
  readonly breaker: CircuitBreaker;
  readonly latency: LatencyStats;
  readonly maxConcurrency: number;
  readonly inFlight: number;
  /** Why its last transport failure happened (what the pool reports when no upstream is left to try). */
  readonly lastFailure: UpstreamFailure | undefined;
  readonly tier: UpstreamTier;
  /** false: it keeps only the last `recentBlocks` blocks of state. */
  readonly archive: boolean;
  readonly recentBlocks: number;
  readonly serves: MethodFilter;
  readonly budget: UpstreamBudget;
  readonly condition: ConditionMonitor;
  /** Latest block the head tracker saw; -1 until the first poll answers. */
  head: number;
  /** Blocks behind the best head at the last poll (the condition reads it). */
  lagBlocks: number;
  /** The widest eth_getLogs range it takes: configured, or learnt from its own error words (Infinity: unknown). */
  logsRangeCap: number;
  identity: IdentityState;
  /** Why the identity is not verified (the wrong chain id found, or the check's failure). */
  identityProblem: string | undefined;
  /** Its last answer that failed an integrity check, while it counts against it. */
  readonly badAnswer: string | undefined;
  /** Records an answer that failed an integrity check: the upstream is avoided for a while. */
  markBadAnswer(detail: string): void;
  /**
   * Sends one JSON-RPC body of `calls` calls costing `cu` compute units of its budget. Resolves with the
   * node's text for results and final JSON-RPC errors; rejects with `UpstreamError` or `RetryableRpcError`,
   * which another node may answer. `poll`: a cheap call (the head poll), sent alone and suspected of a
   * stall sooner (stall-watch.ts).
   */
  send(body: string, calls?: number, cu?: number, mode?: SendMode): Promise<string>;
  /** What a call of `method` costs on its compute-unit table. */
  costOf(method: string): number;
  close(): Promise<void>;
}

export interface PooledUpstreamOptions {
  index: number;
  label: string;
  client: UpstreamClient;
  /**
   * The stall probe's way to the node: never batched with other calls, whose slowest would hold the
   * probe's answer (default: `client`).
   */
  probeClient?: UpstreamClient;
  maxConcurrency: number;
  /** Requests waiting for a free slot beyond which the upstream reports itself overloaded. */
  maxQueued: number;
  breaker: CircuitBreakerOptions;
  metrics: UpstreamMetrics;
  labels: { chain: string; network: string };
  /** A cheap call the node always answers (`eth_chainId`, Solana's `getHealth`): the stall probe. */
  probeBody?: string;
  /** Called after a node taken for stalled answered and its breaker closed: its identity can be checked now. */
  onAnsweredAfterStall?: () => void;
  tier?: UpstreamTier;
  archive?: boolean;
  recentBlocks?: number;
  serves: MethodFilter;
  budget?: UpstreamBudget;
  costOf?: (method: string) => number;
  logsRangeCap?: number;
  maxLagBlocks: number;
  logger: Logger;
}

/** An integrity failure counts against an upstream this long. */
const badAnswerMs = 60_000;
const defaultRecentBlocks = 128;

export function createPooledUpstream(options: PooledUpstreamOptions): PooledUpstream {
  const { client, metrics, labels, label } = options;
  const breakerGauge = metrics.breakerState.labels({ ...labels, upstream: label });
  breakerGauge.set(0);
  let upstream: PooledUpstream;
  const breaker = createCircuitBreaker({
    ...options.breaker,
    onStateChange: (state) => {
      breakerGauge.set(breakerStateValue[state]);
      // A node that went away may come back as another node behind the same URL: check it again.
      if (state === 'open' && upstream.identity === 'verified') upstream.identity = 'unverified';
      upstream.condition.refresh();
    },
  });
  let badAnswer: { detail: string; until: number } | undefined;
  const budget = options.budget ?? createUpstreamBudget();
  const condition = createConditionMonitor({
    upstream: label,
    network: `${labels.chain}/${labels.network}`,
    logger: options.logger,
    facts: () => ({
      identity: upstream.identity,
      identityProblem: upstream.identityProblem,
      breaker: breaker.state,
      lastFailure: upstream.lastFailure,
      backingOffMs: backingOffMs(budget, performance.now()),
      rateLimitedSinceSuccess: sender.rateLimitedSinceSuccess(),
      badAnswer: upstream.badAnswer,
      lagBlocks: upstream.lagBlocks,
      maxLagBlocks: options.maxLagBlocks,
    }),
    onChange: (to, from) => {
      metrics.condition.set({ ...labels, upstream: label, condition: from }, 0);
      metrics.condition.set({ ...labels, upstream: label, condition: to }, 1);
      metrics.conditionChanges.inc({ ...labels, upstream: label, condition: to });
    },
  });
  metrics.condition.set({ ...labels, upstream: label, condition: condition.current.name }, 1);
  const sender = createSender(options, breaker, budget, () => upstream);
  upstream = {
    index: options.index,
    bit: 1 << options.index,
    label,
    url: client.url,
    breaker,
    latency: sender.latency,
    maxConcurrency: options.maxConcurrency,
    get inFlight() {
      return sender.inFlight();
    },
    get lastFailure() {
      return sender.lastFailure();
    },
    tier: options.tier ?? 'primary',
    archive: options.archive ?? true,
    recentBlocks: options.recentBlocks ?? defaultRecentBlocks,
    serves: options.serves,
    budget,
    condition,
    head: -1,
    lagBlocks: 0,
    logsRangeCap: options.logsRangeCap ?? Number.POSITIVE_INFINITY,
    identity: 'unverified',
    identityProblem: undefined,
    get badAnswer() {
      if (badAnswer !== undefined && Date.now() > badAnswer.until) {
        badAnswer = undefined;
        queueMicrotask(() => condition.refresh());
      }
      return badAnswer?.detail;
    },
    markBadAnswer(detail) {
      badAnswer = { detail, until: Date.now() + badAnswerMs };
      metrics.integrityFailures.inc({ ...labels, upstream: label });
      condition.refresh();
    },
    send: sender.send,
    costOf: options.costOf ?? (() => 1),
    close: () => client.close(),
  };
  return upstream;
}

/** ms left of the pause a 429 began (0: none). */
function backingOffMs(budget: UpstreamBudget, now: number): number {
  return budget.stateAt(now) === 'backing_off' ? budget.msUntilAvailable(now) : 0;
}

interface Sender {
  readonly latency: LatencyStats;
  inFlight(): number;
  /** Its last answer was a 429 and none succeeded since. */
  rateLimitedSinceSuccess(): boolean;
  lastFailure(): UpstreamFailure | undefined;
  send(body: string, calls?: number, cu?: number, mode?: SendMode): Promise<string>;
}

/** `poll`: a cheap call that goes alone and is suspected of a stall sooner. */
export type SendMode = 'call' | 'poll';

/** The send path of one upstream: concurrency slots, breaker, budget, stall watch, and what a failure means. */
function createSender(
  options: PooledUpstreamOptions,
  breaker: CircuitBreaker,
  budget: UpstreamBudget,
  self: () => PooledUpstream,
): Sender {
  const { client, maxConcurrency, maxQueued, metrics, labels, label } = options;
  const labelValues = { ...labels, upstream: label };
  const duration = metrics.attemptDuration.labels(labels.chain, labels.network, label);
  const latency = createLatencyStats();
  const probeBody = options.probeBody ?? '{"jsonrpc":"2.0","id":"stall-probe","method":"eth_chainId","params":[]}';
  const probeClient = options.probeClient ?? client;
  const stalls = createStallWatch({
    probe: () => probeClient.send(probeBody),
    // Slow, not stopped (a loaded machine, a long pause), or continued: it serves again now, not after
    // the breaker's cooldown, once its identity is checked again.
    onAnsweredAfterStall: () => {
      if (breaker.state === 'closed') return;
      breaker.onSuccess();
      options.onAnsweredAfterStall?.();
    },
  });
  // A slot is handed from a finishing request to the next waiter, so the limit holds exactly.
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let lastFailure: UpstreamFailure | undefined;
  let throttled = false;
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  };
  const fail = (reason: string, error: Error): never => {
    latency.recordFailure();
    breaker.onFailure(performance.now());
    metrics.attemptErrors.inc({ ...labelValues, reason });
    if (error instanceof UpstreamError) lastFailure = error.reason;
    throw error;
  };
  // A node that says "slow down" is alive: its breaker is not the place for it, its budget is.
  const rateLimited = (error: Error, retryAfterMs: number | undefined): never => {
    budget.onRateLimited(performance.now(), retryAfterMs);
    throttled = true;
    breaker.onSuccess();
    metrics.attemptErrors.inc({ ...labelValues, reason: 'rate_limited' });
    metrics.rateLimited.inc(labelValues);
    self().condition.refresh();
    throw error;
  };

  async function attempt(body: string, calls: number, cu: number, mode: SendMode): Promise<string> {
    const started = performance.now();
    if (!breaker.tryAcquire(started)) throw new UpstreamError('circuit_open', 'upstream circuit breaker is open');
    if (!budget.trySpend(cu, started, calls)) {
      breaker.release();
      throw new UpstreamError('rate_limited', 'upstream is out of its budget', {
        retryAfterMs: budget.msUntilAvailable(started, cu, calls),
      });
    }
    let text: string;
    try {
      text =
        mode === 'poll'
          ? await stalls.watch(() => probeClient.send(body), { poll: true })
          : await stalls.watch(() => client.send(body));
    } catch (error) {
      if (error instanceof UpstreamError && error.reason === 'rate_limited') return rateLimited(error, error.retryAfterMs);
      return fail(error instanceof UpstreamError ? error.reason : 'connection', error as Error);
    }
    const error = answerError(text);
    const kind = error === undefined ? undefined : retryableKindOf(error);
    if (kind === 'rate_limited') return rateLimited(new RetryableRpcError(text, error!.code, kind), undefined);
    const elapsed = performance.now() - started;
    latency.recordSuccess(elapsed);
    breaker.onSuccess();
    budget.onSuccess(performance.now(), calls);
    duration.observe(elapsed / 1000);
    if (throttled) {
      throttled = false;
      self().condition.refresh();
    }
    // A node that lacks a block is alive and answering; another node may have the block.
    if (kind === 'behind') {
      metrics.attemptErrors.inc({ ...labelValues, reason: 'rpc_behind' });
      throw new RetryableRpcError(text, error!.code, kind);
    }
    return text;
  }

  // One span per attempt inside a traced call or round: which upstream, and how it went (a failure's reason).
  const attemptAttributes = { 'blockyard.upstream': label, 'blockyard.chain': labels.chain, 'blockyard.network': labels.network };
  const tracedAttempt = (body: string, calls: number, cu: number, mode: SendMode) =>
    inChildSpan(
      'upstream attempt',
      { ...attemptAttributes, 'blockyard.calls': calls },
      () => attempt(body, calls, cu, mode),
      'client',
    );

  return {
    latency,
    inFlight: () => inFlight,
    rateLimitedSinceSuccess: () => throttled,
    lastFailure: () => lastFailure,
    async send(body, calls = 1, cu = 1, mode = 'call') {
      if (inFlight < maxConcurrency) inFlight++;
      else if (waiting.length < maxQueued) await new Promise<void>((resolve) => waiting.push(resolve));
      else {
        metrics.attemptErrors.inc({ ...labelValues, reason: 'overloaded' });
        throw new UpstreamError('overloaded', 'upstream is at its concurrency limit');
      }
      try {
        return tracingOn() ? await tracedAttempt(body, calls, cu, mode) : await attempt(body, calls, cu, mode);
      } finally {
        release();
      }
    },
  };
}
