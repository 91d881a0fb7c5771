import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/chains/provider-cu-tables.ts';
import { createUpstreamBudget } from '../../src/chains/upstream-budget.ts';
import { maxInAnySecond } from './support/max-in-any-second.ts';

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG), so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Random arrivals with bursts: many calls in the same millisecond, then gaps up to half a second. */
function burstyArrivals(seed: number, count: number): number[] {
  const next = random(seed);
  const times: number[] = [];
  let now = 0;
  for (let i = 0; i < count; i++) {
    const roll = next();
    now += roll < 0.5 ? 0 : roll < 0.9 ? next() * 20 : next() * 500;
    times.push(now);
  }
  return times;
}

describe('upstream budget: limits', () => {
  it('lets everything through with no limit configured, cheaply', () => {
    const budget = createUpstreamBudget();
    for (let i = 0; i < 10_000; i++) expect(budget.trySpend(1000, i / 10)).toBe(true);
    expect(budget.limits()).toEqual({});
    expect(budget.stateAt(1000)).toBe('ok');
    expect(budget.msUntilAvailable(1000)).toBe(0);
  });

  it('grants a second of burst, then refuses until those calls are a second (and a slot) old', () => {
    const budget = createUpstreamBudget({ rps: 10 });
    for (let i = 0; i < 10; i++) expect(budget.trySpend(1, 0)).toBe(true);
    expect(budget.trySpend(1, 0)).toBe(false);
    expect(budget.trySpend(1, 999)).toBe(false);
    expect(budget.stateAt(999)).toBe('exhausted');
    expect(budget.msUntilAvailable(999)).toBe(51);
    expect(budget.trySpend(1, 1049)).toBe(false);
    expect(budget.trySpend(1, 1050)).toBe(true);
    expect(budget.limits()).toEqual({ rps: 10, tunedRps: 10 });
  });

  it('checks without spending', () => {
    const budget = createUpstreamBudget({ rps: 2, cuPerS: 100 });
    for (let i = 0; i < 50; i++) expect(budget.canSpend(50, 0)).toBe(true);
    expect(budget.trySpend(50, 0)).toBe(true);
    expect(budget.trySpend(50, 0)).toBe(true);
    expect(budget.canSpend(1, 0)).toBe(false);
  });

  it('counts each call of a batch against rps', () => {
    const budget = createUpstreamBudget({ rps: 10 });
    expect(budget.trySpend(10, 0, 8)).toBe(true);
    expect(budget.canSpend(3, 1, 3)).toBe(false);
    expect(budget.trySpend(2, 1, 2)).toBe(true);
    expect(budget.trySpend(1, 2)).toBe(false);
  });

  it('counts compute units against cu_per_s, and lets one call above the whole limit through an empty window', () => {
    const budget = createUpstreamBudget({ cuPerS: 330 });
    expect(budget.trySpend(costOf('alchemy', 'eth_getLogs'), 0)).toBe(true);
    expect(budget.trySpend(costOf('alchemy', 'eth_getBlockReceipts'), 0)).toBe(false);
    expect(budget.msUntilAvailable(0, 500)).toBe(1050);
    expect(budget.trySpend(costOf('alchemy', 'eth_getBlockReceipts'), 1050)).toBe(true);
    expect(budget.trySpend(costOf('alchemy', 'eth_chainId'), 1100)).toBe(false);
    expect(budget.limits()).toEqual({ cuPerS: 330, tunedCuPerS: 330 });
  });

  it.each([1, 2, 3])('never grants more than rps in any sliding second (bursty arrivals, seed %i)', (seed) => {
    const budget = createUpstreamBudget({ rps: 37 });
    const granted = burstyArrivals(seed, 20_000).filter((now) => budget.trySpend(1, now));
    expect(
      maxInAnySecond(
        granted,
        granted.map(() => 1),
      ),
    ).toBeLessThanOrEqual(37);
    expect(granted.length).toBeGreaterThan(1000);
  });

  it.each([4, 5])('never grants more than cu_per_s in any sliding second (Alchemy costs, seed %i)', (seed) => {
    const methods = ['eth_blockNumber', 'eth_call', 'eth_getBalance', 'eth_getLogs', 'eth_getTransactionReceipt'];
    const budget = createUpstreamBudget({ cuPerS: 330, rps: 25 });
    const pick = random(seed);
    const times: number[] = [];
    const costs: number[] = [];
    for (const now of burstyArrivals(seed, 20_000)) {
      const cu = costOf('alchemy', methods[Math.floor(pick() * methods.length)]!);
      if (!budget.trySpend(cu, now)) continue;
      times.push(now);
      costs.push(cu);
    }
    expect(maxInAnySecond(times, costs)).toBeLessThanOrEqual(330);
    expect(
      maxInAnySecond(
        times,
        costs.map(() => 1),
      ),
    ).toBeLessThanOrEqual(25);
  });

  it('reads state from its clock', () => {
    let now = 0;
    const budget = createUpstreamBudget({ rps: 1, clock: () => now });
    expect(budget.state).toBe('ok');
    budget.trySpend(1, now);
    expect(budget.state).toBe('exhausted');
    budget.onRateLimited(now, 5000);
    now = 4999;
    expect(budget.state).toBe('backing_off');
    now = 5000;
    expect(budget.state).toBe('ok');
  });
});
