import type { PooledUpstream } from './pooled-upstream.ts';
import type { ReadNeed } from './read-need.ts';

/** The pool's view when a read is routed. */
export interface RoutingView {
  /** The served tip: the newest block any verified upstream reported. */
  readonly tip: number;
  /** Blocks behind the tip beyond which a node counts as lagging for reads that name no block. */
  readonly maxLagBlocks: number;
}

/** Calls in a request: a batch's count, else one. */
export function callsOf(need: ReadNeed): number {
  return need.methods?.length ?? 1;
}

/** What a request costs on an upstream's compute-unit table. */
export function costOn(upstream: PooledUpstream, need: ReadNeed): number {
  if (need.methods === undefined) return upstream.costOf(need.method);
  let cu = 0;
  for (const method of need.methods) cu += upstream.costOf(method);
  return cu;
}

/** Why no upstream was picked, when none was. */
export interface NoPick {
  /** Some upstream serves the method but every such one is out of budget; ms until one can take it. */
  readonly budgetWaitMs: number | undefined;
  /** Some verified upstream serves the method at all. */
  readonly anyServes: boolean;
}

// Shortcomings, worst first: an upstream with a worse one is used only when no better one is left.
// Lacking the block outranks the tier: a fallback that has the block serves before a primary without it.
const lacksBlock = 5;
const prunedState = 4;
const rangeTooWide = 3;
const fallbackTier = 2;
const lagging = 1;

/**
 * The upstream to send `need` to: able to serve it (verified, breaker letting calls through, method
 * allowed, within budget), then the one with the fewest shortcomings (see above), then by peak-EWMA
 * (latency times load, so a stalled node, whose calls pile up, loses traffic at once). `tried` is a bit
 * mask of upstreams already asked for this call.
 */
export function pickUpstream(
  upstreams: readonly PooledUpstream[],
  need: ReadNeed,
  view: RoutingView,
  tried: number,
): PooledUpstream | NoPick {
  const now = performance.now();
  let best: PooledUpstream | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  let bestScore = Number.POSITIVE_INFINITY;
  let budgetWaitMs: number | undefined;
  let anyServes = false;
  for (const upstream of upstreams) {
    if (upstream.identity !== 'verified' || !servesAll(upstream, need)) continue;
    // One that failed this call still serves the method: the call failed, it was not refused.
    anyServes = true;
    if ((tried & upstream.bit) !== 0) continue;
    if (!upstream.breaker.isAvailable(now)) continue;
    const calls = callsOf(need);
    const cu = costOn(upstream, need);
    if (!upstream.budget.canSpend(cu, now, calls)) {
      const wait = upstream.budget.msUntilAvailable(now, cu, calls);
      budgetWaitMs = budgetWaitMs === undefined ? wait : Math.min(budgetWaitMs, wait);
      continue;
    }
    const rank = rankOf(upstream, need, view);
    let score = (upstream.latency.ewmaMs + 0.01) * (upstream.inFlight + 1);
    if (upstream.inFlight >= upstream.maxConcurrency) score += 1e9;
    if (upstream.badAnswer !== undefined) score += 1e6;
    if (rank < bestRank || (rank === bestRank && score < bestScore)) {
      best = upstream;
      bestRank = rank;
      bestScore = score;
    }
  }
  return best ?? { budgetWaitMs, anyServes };
}

function servesAll(upstream: PooledUpstream, need: ReadNeed): boolean {
  if (need.methods === undefined) return need.method === '' || upstream.serves(need.method);
  for (const method of need.methods) if (!upstream.serves(method)) return false;
  return true;
}

/**
 * Shortcomings as a number that orders them: the worst one counts most, then how many blocks short
 * the upstream is (so the nearest node serves when none has the block).
 */
function rankOf(upstream: PooledUpstream, need: ReadNeed, view: RoutingView): number {
  const { head } = upstream;
  const required = need.block >= 0 ? need.block : need.atTip || need.byHash ? view.tip : -1;
  let worst = 0;
  let shortBy = 0;
  if (required >= 0 && head < required) {
    worst = lacksBlock;
    shortBy = head < 0 ? 1e6 : Math.min(1e6, required - head);
  } else if (need.oldest >= 0 && !upstream.archive && need.oldest < head - upstream.recentBlocks) {
    worst = prunedState;
  } else if (need.logsFrom >= 0 && logsSpan(need, view) > upstream.logsRangeCap) {
    worst = rangeTooWide;
  } else if (upstream.tier === 'fallback') {
    worst = fallbackTier;
  } else if (required < 0 && head >= 0 && head < view.tip - view.maxLagBlocks) {
    worst = lagging;
  }
  // Between equals, a primary before a fallback.
  return worst * 1e7 + shortBy * 2 + (upstream.tier === 'fallback' ? 1 : 0);
}

/** Blocks in an eth_getLogs range, `latest` read as the tip. */
export function logsSpan(need: ReadNeed, view: Pick<RoutingView, 'tip'>): number {
  const to = need.block >= 0 ? need.block : view.tip;
  return Math.max(1, to - need.logsFrom + 1);
}
