import { describe, expect, it } from 'vitest';
import { consumeBudgets, keyBudgetId, rateLimitMessage, unpayableCost } from '../../src/limits/charge-budgets.ts';
import { rateLimitHeaders } from '../../src/limits/headers.ts';
import { createMemoryLimiter } from '../../src/limits/memory-limiter.ts';

/** A clock the test moves by hand. Starts 0.25 s into a second, mid-day UTC. */
function fakeClock(startMs = Date.UTC(2026, 0, 15, 12, 0, 0, 250)) {
  let t = startMs;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const account = { id: 'acct', limits: { rps: 10, rpd: 100_000, cups: 200 } };
const keyBudget = (limits: { rps?: number | null; rpd?: number | null; cups?: number | null }, keyId = 'k1') => ({
  id: keyBudgetId(keyId),
  limits: { rps: null, rpd: null, cups: null, ...limits },
});

describe('memory limiter over several budgets (account and key)', () => {
  it("a key's 3 rps under an account's 10: 3 of 10 parallel pass, another key of the account still passes", async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const key = keyBudget({ rps: 3 });
    const decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.consumeAll([account, key], 1)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    for (const d of decisions.filter((d) => !d.allowed)) {
      expect(d.refusedBy).toBe(1);
      expect(d.decisions[1]).toMatchObject({ exceeded: 'rps', retryAfterS: 1, rps: { remaining: 0 } });
      // Refused by the key: the account counted nothing either (3 of 10 used).
      expect(d.decisions[0]).toMatchObject({ rps: { remaining: 7 }, cups: { remaining: 197 }, rpd: { remaining: 99_997 } });
    }
    const other = await limiter.consumeAll([account, keyBudget({ rps: 3 }, 'k2')], 1);
    expect(other).toMatchObject({ allowed: true });
    expect(other.decisions[0]!.rps.remaining).toBe(6);
    expect(other.decisions[1]!.rps.remaining).toBe(2);
  });

  it("a refusal by the account counts nothing in the key's budget", async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const small = { id: 'acct', limits: { rps: 2, rpd: null, cups: null } };
    const key = keyBudget({ rps: 5, rpd: 100 });
    for (let i = 0; i < 2; i++) expect((await limiter.consumeAll([small, key], 1)).allowed).toBe(true);
    const refused = await limiter.consumeAll([small, key], 1);
    expect(refused).toMatchObject({ allowed: false, refusedBy: 0 });
    expect(refused.decisions[1]).toMatchObject({ rps: { remaining: 3 }, rpd: { remaining: 98 } });
  });

  it("a key's compute units per second refuse what does not fit; a daily refusal outweighs a per-second one", async () => {
    const clock = fakeClock();
    const limiter = createMemoryLimiter({ now: clock.now });
    const key = keyBudget({ cups: 50, rpd: 2 });
    expect((await limiter.consumeAll([account, key], 30)).allowed).toBe(true);
    const overCu = await limiter.consumeAll([account, key], 30);
    expect(overCu).toMatchObject({ allowed: false, refusedBy: 1 });
    expect(overCu.decisions[1]).toMatchObject({ exceeded: 'cups', cups: { remaining: 20 } });
    clock.advance(1_000);
    expect((await limiter.consumeAll([account, key], 1)).allowed).toBe(true);
    // The account is out of requests this second and the key out of requests today: the key's day decides.
    const tight = { id: 'acct', limits: { rps: 1, rpd: null, cups: null } };
    const both = await limiter.consumeAll([tight, key], 1);
    expect(both).toMatchObject({ allowed: false, refusedBy: 1 });
    expect(both.decisions[0]!.exceeded).toBe('rps');
    expect(both.decisions[1]!.retryAfterS).toBeGreaterThan(1);
  });

  it('keeps the key budgets of one account apart, and rejects invalid compute units', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    for (let i = 0; i < 2; i++) await limiter.consumeAll([account, keyBudget({ rps: 2 }, 'a')], 1);
    expect((await limiter.consumeAll([account, keyBudget({ rps: 2 }, 'a')], 1)).allowed).toBe(false);
    expect((await limiter.consumeAll([account, keyBudget({ rps: 2 }, 'b')], 1)).allowed).toBe(true);
    expect(limiter.trackedAccounts()).toBe(3);
    await expect(limiter.consumeAll([account], -1)).rejects.toThrow(RangeError);
    await expect(limiter.consumeAll([], 1)).rejects.toThrow(/at least one budget/);
  });
});

describe('charging a principal with its key limits', () => {
  const principal = (keyLimits?: { rps: number | null; rpd: number | null; cups: number | null }) => ({
    accountId: 'acct',
    keyId: 'k1',
    limits: { rps: 10, rpd: 100_000, cups: 200 },
    ...(keyLimits ? { keyLimits } : {}),
  });

  it('headers show, per window, the budget with fewer remaining; the 429 message names the key', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const p = principal({ rps: 3, rpd: null, cups: 500 });
    const first = await consumeBudgets(limiter, p, 7);
    // rps: the key's 3 (2 left) < the account's 10 (9 left); cups: the account's 200 (193 left) < the key's 500 (493).
    expect(rateLimitHeaders(first)).toEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': String(first.rps.resetAt),
      'X-RateLimit-Limit-Day': '100000',
      'X-RateLimit-Remaining-Day': '99999',
      'X-RateLimit-Limit-CU': '200',
      'X-RateLimit-Remaining-CU': '193',
    });
    await consumeBudgets(limiter, p, 1);
    await consumeBudgets(limiter, p, 1);
    const refused = await consumeBudgets(limiter, p, 1);
    expect(refused).toMatchObject({ allowed: false, byKey: true, exceeded: 'rps', retryAfterS: 1 });
    expect(rateLimitHeaders(refused)).toMatchObject({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'Retry-After': '1',
    });
    expect(rateLimitMessage(refused)).toBe("rate limit exceeded: this key's requests per second; retry after 1 s");
  });

  it("keeps today's message and path for the account, and for keys without limits", async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    for (let i = 0; i < 10; i++) await consumeBudgets(limiter, principal({ rps: 50, rpd: null, cups: null }), 1);
    const byAccount = await consumeBudgets(limiter, principal({ rps: 50, rpd: null, cups: null }), 1);
    expect(byAccount).toMatchObject({ allowed: false, byKey: false });
    expect(rateLimitMessage(byAccount)).toBe('rate limit exceeded: requests per second; retry after 1 s');
    const plain = await consumeBudgets(limiter, principal(), 1);
    expect(plain.byKey).toBeUndefined();
    expect(limiter.trackedAccounts()).toBe(2); // the account and k1; a key without limits adds no budget
  });

  it("names the smaller per-second CU budget a cost alone exceeds, the key's or the plan's", () => {
    expect(unpayableCost(100, principal({ rps: null, rpd: null, cups: 50 }))).toEqual({ cups: 50, byKey: true });
    expect(unpayableCost(300, principal({ rps: null, rpd: null, cups: 250 }))).toEqual({ cups: 200, byKey: false });
    expect(unpayableCost(40, principal({ rps: null, rpd: null, cups: 50 }))).toBeUndefined();
    expect(unpayableCost(300, principal())).toEqual({ cups: 200, byKey: false });
  });
});
