/**
 * One upstream's spending limits: `rps` (calls per second) and/or `cu_per_s` (its provider's compute
 * units or credits per second, see provider-cu-tables.ts), tuned down when the node answers 429.
 *
 * Why a sliding window of slots and not a plain token bucket: a bucket holding one second's worth
 * (burst = the limit) that refills continuously lets 2x the limit through in one second (the full
 * bucket, then a second's refill), and providers count per second, so a paid key would see 429s at
 * exactly the rate it was told to stay under. Here each second is 20 slots of 50 ms and what a call
 * takes is given back when its slot is 21 slots old. Any 1 s interval lies within 21 consecutive slots,
 * so over ANY sliding second the calls granted are at most the limit, exactly; the burst is still one
 * second's worth (after an idle second the whole limit may go at once). The price: under saturation the
 * limit is spread over 1.05 s, so at most 95% of it is used.
 *
 * Auto-tuning, as eRPC does: a 429 cuts the limit to 90% of what the node accepted in the second
 * before (its successes; for CU, the CU sent times the share of calls that succeeded), so below the
 * rate that drew it; an upstream with no configured rps learns one this way. Not 90% of what was sent:
 * calls sent while the 429 was on its way back were refused too, and counting them would keep the limit
 * above the node's. Then nothing is sent until the Retry-After (else 1 s, doubling per consecutive 429,
 * capped at 30 s). The 429s of calls already in flight are the same episode: one cut a second at most,
 * no added wait. Each second of success in which the tuned limit turned calls away raises it by 1%
 * (+0.2), never above the configured limit: slow enough that the limit is a step or two past the
 * node's at most when its next 429 comes back (in the simulation in upstream-budget-simulation.test.ts a node
 * allowing 100/s gets at most 105 in any second after its first 429, answers taking 0 to 250 ms), fast
 * enough to be back from a cut in about ten seconds.
 */

export type BudgetState = 'ok' | 'backing_off' | 'exhausted';

export interface BudgetLimits {
  rps?: number;
  cuPerS?: number;
  tunedRps?: number;
  tunedCuPerS?: number;
}

export interface UpstreamBudget {
  /** Whether `calls` calls costing `cu` in all may go now (no side effect). A batch is its calls, each counted. */
  canSpend(cu: number, now: number, calls?: number): boolean;
  /** Takes them; false when over budget or backing off (then the pool picks another upstream). */
  trySpend(cu: number, now: number, calls?: number): boolean;
  /** The node answered 429 / rate limited: send nothing until `now + retryAfterMs` (or a backoff), and tune down. */
  onRateLimited(now: number, retryAfterMs?: number): void;
  /** `calls` calls (a batch: each) succeeded: the tuned limits creep back towards the configured ones. */
  onSuccess(now: number, calls?: number): void;
  /** As of the clock the budget was made with. */
  readonly state: BudgetState;
  stateAt(now: number): BudgetState;
  /** ms until a call of `cu` (default 1) may go again: the Retry-After for a client when no upstream has budget. */
  msUntilAvailable(now: number, cu?: number, calls?: number): number;
  /** The configured and current effective limits, for /admin status. */
  limits(): BudgetLimits;
}

export interface UpstreamBudgetOptions {
  rps?: number;
  cuPerS?: number;
  /** What `state` reads the time from; times elsewhere are passed in. Default `performance.now`. */
  clock?: () => number;
}

const windowMs = 1000;
const slotsPerSecond = 20;
const slotMs = windowMs / slotsPerSecond;
/** One more slot than a second holds: a 1 s interval starting inside a slot ends inside the 21st. */
const ringSize = slotsPerSecond + 1;

const cutFactor = 0.9;
/**
 * A cut never goes below this share of a configured limit: a 429 on an almost idle key says more about a
 * daily quota or a key shared with others than about our rate, and the backoff already covers those.
 */
const minShareOfConfigured = 0.1;
const raiseFactor = 1.01;
/** So a limit learned small (a few calls a second) climbs back in minutes, not hours. */
const raiseStep = 0.2;
/** Below one call (or CU) a second a limit is only a way of never asking. */
const minTuned = 1;
const firstBackoffMs = 1000;
const maxBackoffMs = 30_000;
/** A Retry-After of hours is more likely a misconfigured proxy than a plan; the breaker covers a dead key. */
const maxRetryAfterMs = 10 * 60_000;

/** What was spent in the last second (and up to one slot more), by 50 ms slot, without allocating. */
class SpendWindow {
  private readonly slots = new Float64Array(ringSize);
  /** Number of the newest slot (time / slotMs); -Infinity before the first spend. */
  private newest = Number.NEGATIVE_INFINITY;
  private total = 0;

  spent(now: number): number {
    this.advance(now);
    return this.total;
  }

  add(amount: number, now: number): void {
    this.advance(now);
    this.slots[slotIndex(this.newest)]! += amount;
    this.total += amount;
  }

  /** ms until `need` more fits under `limit`; a need above the whole limit fits an empty window. */
  msUntilFits(need: number, limit: number, now: number): number {
    this.advance(now);
    if (this.total === 0) return 0;
    let excess = this.total + need - limit;
    if (excess <= 0) return 0;
    for (let slot = this.newest - slotsPerSecond; slot <= this.newest; slot++) {
      excess -= this.slots[slotIndex(slot)]!;
      if (excess <= 0 || slot === this.newest) return (slot + ringSize) * slotMs - now;
    }
    return 0;
  }

  private advance(now: number): void {
    const slot = Math.floor(now / slotMs);
    if (slot <= this.newest) return;
    if (slot - this.newest >= ringSize) {
      this.slots.fill(0);
      this.total = 0;
    } else {
      for (let s = this.newest + 1; s <= slot; s++) {
        const index = slotIndex(s);
        this.total -= this.slots[index]!;
        this.slots[index] = 0;
      }
      // Float sums of fractional costs may leave dust where the window is empty.
      if (this.total < 1e-9) this.total = 0;
    }
    this.newest = slot;
  }
}

function slotIndex(slot: number): number {
  return ((slot % ringSize) + ringSize) % ringSize;
}

/** One limited quantity (calls or CU): configured limit, tuned limit, and what was spent. */
class Dimension {
  readonly window = new SpendWindow();
  tuned: number;
  /** When trySpend last found no room: success says something about more only while the limit binds. */
  refusedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly configured: number,
    /** Whether 429s tune it: a configured limit, or the calls of an upstream with none configured. */
    readonly tunable: boolean,
  ) {
    this.tuned = configured;
  }

  fits(amount: number, now: number): boolean {
    if (this.tuned === Number.POSITIVE_INFINITY) return true;
    const spent = this.window.spent(now);
    return spent + amount <= this.tuned || spent === 0;
  }

  msUntilFits(amount: number, now: number): number {
    return this.tuned === Number.POSITIVE_INFINITY ? 0 : this.window.msUntilFits(amount, this.tuned, now);
  }

  /** Below the rate that drew the 429: 90% of what the node `accepted` in the last second, or of the tuned limit if less. */
  cut(accepted: number): void {
    if (!this.tunable) return;
    const floor = Number.isFinite(this.configured) ? Math.max(minTuned, this.configured * minShareOfConfigured) : minTuned;
    this.tuned = Math.max(floor, Math.min(this.tuned, accepted) * cutFactor);
  }

  raise(now: number): void {
    if (!this.tunable || this.tuned >= this.configured || now - this.refusedAt >= windowMs) return;
    this.tuned = Math.min(this.configured, this.tuned * raiseFactor + raiseStep);
  }
}

/** A budget for one upstream; with neither limit every call goes until the node's first 429 teaches one. */
export function createUpstreamBudget(options: UpstreamBudgetOptions = {}): UpstreamBudget {
  const clock = options.clock ?? (() => performance.now());
  const hasCu = options.cuPerS !== undefined;
  const calls = new Dimension(options.rps ?? Number.POSITIVE_INFINITY, options.rps !== undefined || !hasCu);
  const units = new Dimension(options.cuPerS ?? Number.POSITIVE_INFINITY, hasCu);
  /** Calls the node answered without a 429 in the last second: the rate it accepts. */
  const succeeded = new SpendWindow();
  let backoffUntil = Number.NEGATIVE_INFINITY;
  /** Consecutive backoffs without a clean second between: the exponent of the backoff. */
  let streak = 0;
  let lastCut = Number.NEGATIVE_INFINITY;
  let lastRaise = Number.NEGATIVE_INFINITY;

  const cut = (now: number) => {
    const sent = calls.window.spent(now);
    const accepted = succeeded.spent(now);
    calls.cut(accepted);
    if (hasCu) units.cut(sent === 0 ? 0 : units.window.spent(now) * Math.min(1, accepted / sent));
  };

  const canSpend = (cu: number, now: number, count = 1) =>
    now >= backoffUntil && calls.fits(count, now) && (!hasCu || units.fits(cu, now));

  const stateAt = (now: number): BudgetState => {
    if (now < backoffUntil) return 'backing_off';
    return canSpend(1, now) ? 'ok' : 'exhausted';
  };

  return {
    canSpend,
    trySpend(cu, now, count = 1) {
      if (now < backoffUntil) return false;
      if (!calls.fits(count, now)) {
        calls.refusedAt = now;
        return false;
      }
      if (hasCu && !units.fits(cu, now)) {
        units.refusedAt = now;
        return false;
      }
      // Calls are counted even with no rps limit: a 429 learns one from them, and a CU cut weighs by them.
      calls.window.add(count, now);
      if (hasCu) units.window.add(cu, now);
      return true;
    },
    onRateLimited(now, retryAfterMs) {
      const told = retryAfterMs === undefined ? undefined : Math.min(maxRetryAfterMs, Math.max(0, retryAfterMs));
      if (now < backoffUntil) {
        // The answer to a call sent before the backoff began: only the node's own word moves the end.
        if (told !== undefined) backoffUntil = Math.max(backoffUntil, now + told);
        return;
      }
      // Within a second of a cut the window still holds the traffic that drew it: cutting again would count it twice.
      if (now - lastCut >= windowMs) {
        cut(now);
        lastCut = now;
      }
      if (told === undefined) streak++;
      backoffUntil = now + (told ?? Math.min(maxBackoffMs, firstBackoffMs * 2 ** (streak - 1)));
    },
    onSuccess(now, count = 1) {
      succeeded.add(count, now);
      if (now < backoffUntil + windowMs) return;
      streak = 0;
      if (now - lastRaise < windowMs) return;
      lastRaise = now;
      calls.raise(now);
      units.raise(now);
    },
    get state() {
      return stateAt(clock());
    },
    stateAt,
    msUntilAvailable(now, cu = 1, count = 1) {
      const windowWait = Math.max(calls.msUntilFits(count, now), hasCu ? units.msUntilFits(cu, now) : 0);
      return Math.max(backoffUntil - now, windowWait, 0);
    },
    limits: () => limitsOf(calls, hasCu ? units : undefined),
  };
}

function limitsOf(calls: Dimension, units: Dimension | undefined): BudgetLimits {
  const limits: BudgetLimits = {};
  if (calls.configured !== Number.POSITIVE_INFINITY) limits.rps = calls.configured;
  if (calls.tuned !== Number.POSITIVE_INFINITY) limits.tunedRps = calls.tuned;
  if (units !== undefined) {
    limits.cuPerS = units.configured;
    limits.tunedCuPerS = units.tuned;
  }
  return limits;
}
