import { describe, expect, it } from 'vitest';
import { createUpstreamBudget, type UpstreamBudget } from '../../src/chains/upstream-budget.ts';

/** Sends `count` calls `every` ms apart from `start`, each answered at once without a 429. */
function sendAccepted(budget: UpstreamBudget, count: number, every: number, start = 0, cu = 1): void {
  for (let i = 0; i < count; i++) {
    const now = start + i * every;
    if (budget.trySpend(cu, now)) budget.onSuccess(now);
  }
}

describe('upstream budget: 429s', () => {
  it('sends nothing until the Retry-After, then tunes below the rate that drew the 429', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    sendAccepted(budget, 50, 10);
    budget.onRateLimited(500, 2000);
    expect(budget.stateAt(500)).toBe('backing_off');
    expect(budget.canSpend(1, 2499)).toBe(false);
    expect(budget.msUntilAvailable(2000)).toBe(500);
    expect(budget.canSpend(1, 2500)).toBe(true);
    expect(budget.limits()).toEqual({ rps: 100, tunedRps: 45 });
  });

  it('backs off 1 s, 2 s, 4 s… on consecutive 429s without Retry-After, capped at 30 s, and starts over after a clean second', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    let now = 0;
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      budget.onRateLimited(now);
      waits.push(budget.msUntilAvailable(now));
      now += waits.at(-1)!;
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    budget.onSuccess(now + 1000);
    budget.onRateLimited(now + 1001);
    expect(budget.msUntilAvailable(now + 1001)).toBe(1000);
  });

  it('treats the 429s of calls already in flight as the same episode: one cut, no longer wait', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    sendAccepted(budget, 80, 10);
    budget.onRateLimited(800);
    for (let t = 801; t < 900; t++) budget.onRateLimited(t);
    expect(budget.limits().tunedRps).toBe(72);
    expect(budget.msUntilAvailable(899)).toBe(901);
    budget.onRateLimited(900, 3000);
    expect(budget.msUntilAvailable(900)).toBe(3000);
  });

  it('cuts once a second at most when Retry-After is 0 and the in-flight 429s come after it', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    sendAccepted(budget, 80, 10);
    for (let t = 800; t < 850; t++) budget.onRateLimited(t, 0);
    expect(budget.limits().tunedRps).toBe(72);
  });

  it('cuts from what the node accepted, not from what was sent while its 429 was on the way back', () => {
    const budget = createUpstreamBudget({ rps: 200, cuPerS: 10_000 });
    sendAccepted(budget, 60, 5, 0, 20);
    for (let i = 0; i < 40; i++) budget.trySpend(20, 300 + i * 5);
    budget.onRateLimited(500);
    expect(budget.limits()).toEqual({ rps: 200, tunedRps: 54, cuPerS: 10_000, tunedCuPerS: 1080 });
  });

  it('never cuts a configured limit below a tenth of it on a 429 of a key that accepted nothing', () => {
    const budget = createUpstreamBudget({ rps: 200 });
    budget.trySpend(1, 0);
    budget.onRateLimited(10);
    expect(budget.limits().tunedRps).toBe(20);
  });

  it('learns an rps from its 429s when none is configured', () => {
    const budget = createUpstreamBudget();
    sendAccepted(budget, 300, 2);
    budget.onRateLimited(600);
    expect(budget.limits()).toEqual({ tunedRps: 270 });
  });

  it('with only cu_per_s configured, tunes that and leaves calls unlimited', () => {
    const budget = createUpstreamBudget({ cuPerS: 1000 });
    sendAccepted(budget, 20, 10, 0, 26);
    budget.onRateLimited(200);
    expect(budget.limits()).toEqual({ cuPerS: 1000, tunedCuPerS: 468 });
  });

  it('raises the tuned limit 1% (+0.2) a second while it is the bottleneck, never above the configured limit', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    sendAccepted(budget, 100, 10);
    budget.onRateLimited(1000);
    expect(budget.limits().tunedRps).toBe(90);
    let now = 2000;
    const drive = (until: number) => {
      for (; now < until; now += 2) if (budget.trySpend(1, now)) budget.onSuccess(now);
    };
    drive(3000);
    expect(budget.limits().tunedRps).toBe(90); // no raise in the first second after the backoff
    drive(4001);
    expect(budget.limits().tunedRps).toBeCloseTo(90 * 1.01 + 0.2, 6);
    drive(20_000);
    expect(budget.limits().tunedRps).toBe(100);
  });

  it('does not raise the tuned limit while demand stays under it', () => {
    const budget = createUpstreamBudget({ rps: 100 });
    sendAccepted(budget, 100, 10);
    budget.onRateLimited(1000);
    for (let now = 2000; now < 20_000; now += 50) if (budget.trySpend(1, now)) budget.onSuccess(now);
    expect(budget.limits().tunedRps).toBe(90);
  });
});
