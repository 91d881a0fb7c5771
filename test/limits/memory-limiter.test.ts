import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../src/limits/headers.ts';
import { createMemoryLimiter } from '../../src/limits/memory-limiter.ts';
import { planLimits, resolveLimits } from '../../src/limits/plans.ts';

/** A clock the test moves by hand. Starts 0.25 s into a second, mid-day UTC. */
function fakeClock(startMs = Date.UTC(2026, 0, 15, 12, 0, 0, 250)) {
  let t = startMs;
  return { now: () => t, advance: (ms: number) => (t += ms), set: (ms: number) => (t = ms) };
}

const free = { rps: 10, rpd: 100_000, cups: 200 };

describe('plans', () => {
  it('has the spec defaults and lets overrides win for any plan', () => {
    expect(resolveLimits('free', {})).toEqual({ rps: 10, rpd: 100_000, cups: 200, webhook_deliveries_per_day: 1_000 });
    expect(resolveLimits('growth', {})).toMatchObject({ rps: 100, rpd: 5_000_000, cups: 2_000 });
    expect(resolveLimits('enterprise', {})).toEqual({ rps: null, rpd: null, cups: null, webhook_deliveries_per_day: null });
    expect(resolveLimits('enterprise', { rps: 500 })).toMatchObject({ rps: 500, rpd: null });
    expect(resolveLimits('free', { rpd: null, cups: 1 })).toMatchObject({ rps: 10, rpd: null, cups: 1 });
    expect(Object.isFrozen(planLimits.free)).toBe(true);
  });
});

describe('memory limiter', () => {
  it('allows exactly 10 of 50 parallel calls against 10 rps', async () => {
    const clock = fakeClock();
    const limiter = createMemoryLimiter({ now: clock.now });
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.consume('a', free, 1)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused).toHaveLength(40);
    for (const d of refused) expect(d).toMatchObject({ exceeded: 'rps', retryAfterS: 1, rps: { remaining: 0 } });
    // Refused calls counted nothing: 10 requests and 10 CU for the day and the second.
    const last = decisions.at(-1)!;
    expect(last.rpd.remaining).toBe(100_000 - 10);
    expect(last.cups.remaining).toBe(200 - 10);
  });

  it('opens a new window at the next Unix second', async () => {
    const clock = fakeClock();
    const limiter = createMemoryLimiter({ now: clock.now });
    for (let i = 0; i < 10; i++) expect((await limiter.consume('a', free, 1)).allowed).toBe(true);
    const refused = await limiter.consume('a', free, 1);
    expect(refused.allowed).toBe(false);
    const second = Math.floor(clock.now() / 1000);
    expect(refused.rps.resetAt).toBe(second + 1);
    clock.advance(749); // still the same second
    expect((await limiter.consume('a', free, 1)).allowed).toBe(false);
    clock.advance(1); // exactly the boundary
    const next = await limiter.consume('a', free, 1);
    expect(next).toMatchObject({ allowed: true, rps: { remaining: 9, resetAt: second + 2 } });
  });

  it('charges compute units and refuses what does not fit, counting nothing', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const limits = { rps: 10, rpd: null, cups: 100 };
    expect(await limiter.consume('a', limits, 60)).toMatchObject({ allowed: true, cups: { remaining: 40 } });
    const refused = await limiter.consume('a', limits, 60);
    expect(refused).toMatchObject({
      allowed: false,
      exceeded: 'cups',
      retryAfterS: 1,
      cups: { remaining: 40 },
      rps: { remaining: 9 },
    });
    expect(refused.costExceedsLimit).toBeUndefined();
    expect(await limiter.consume('a', limits, 40)).toMatchObject({
      allowed: true,
      cups: { remaining: 0 },
      rps: { remaining: 8 },
    });
  });

  it('flags a cost that can never fit the CU/s limit', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const d = await limiter.consume('a', free, 201);
    expect(d).toMatchObject({ allowed: false, exceeded: 'cups', costExceedsLimit: true, retryAfterS: 1 });
    expect(d.rps.remaining).toBe(10);
  });

  it('enforces the daily limit until the next UTC midnight', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 15, 23, 59, 0, 500));
    const limiter = createMemoryLimiter({ now: clock.now });
    const limits = { rps: 100, rpd: 3, cups: null };
    for (let i = 0; i < 3; i++) expect((await limiter.consume('a', limits, 1)).allowed).toBe(true);
    clock.advance(5_000); // new second, same day
    const refused = await limiter.consume('a', limits, 1);
    const midnight = Date.UTC(2026, 0, 16) / 1000;
    expect(refused).toMatchObject({ allowed: false, exceeded: 'rpd', rpd: { remaining: 0, resetAt: midnight } });
    expect(refused.retryAfterS).toBe(55); // 23:59:05.5 -> 00:00:00 is 54.5 s, rounded up
    clock.set(Date.UTC(2026, 0, 16, 0, 0, 0, 1));
    expect(await limiter.consume('a', limits, 1)).toMatchObject({ allowed: true, rpd: { remaining: 2 } });
  });

  it('reports the first exceeded limit in the order rps, cups, rpd', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const limits = { rps: 1, rpd: 1, cups: 1 };
    await limiter.consume('a', limits, 1);
    expect((await limiter.consume('a', limits, 1)).exceeded).toBe('rps');
    const limiter2 = createMemoryLimiter({ now: fakeClock().now });
    await limiter2.consume('a', { rps: 5, rpd: 1, cups: 1 }, 1);
    expect((await limiter2.consume('a', { rps: 5, rpd: 1, cups: 1 }, 1)).exceeded).toBe('cups');
  });

  it('never refuses unlimited (null) limits', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    const unlimited = { rps: null, rpd: null, cups: null };
    for (let i = 0; i < 1_000; i++) expect((await limiter.consume('a', unlimited, 500)).allowed).toBe(true);
    const d = await limiter.consume('a', unlimited, 1);
    expect(d.rps).toMatchObject({ limit: null, remaining: null });
    expect(d.rpd).toMatchObject({ limit: null, remaining: null });
    expect(d.cups).toMatchObject({ limit: null, remaining: null });
  });

  it('keeps accounts apart', async () => {
    const limiter = createMemoryLimiter({ now: fakeClock().now });
    for (let i = 0; i < 10; i++) await limiter.consume('a', free, 1);
    expect((await limiter.consume('a', free, 1)).allowed).toBe(false);
    expect((await limiter.consume('b', free, 1)).allowed).toBe(true);
  });

  it('drops old windows so memory stays bounded', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 15, 12, 0, 0, 0));
    const limiter = createMemoryLimiter({ now: clock.now });
    const noDaily = { rps: 10, rpd: null, cups: null };
    for (let i = 0; i < 1_000; i++) await limiter.consume(`burst-${i}`, noDaily, 1);
    await limiter.consume('daily', free, 1);
    expect(limiter.trackedAccounts()).toBe(1_001);
    clock.advance(61_000);
    await limiter.consume('other', noDaily, 1);
    expect(limiter.trackedAccounts()).toBe(2); // 'daily' keeps its day count, 'other' is new
    clock.set(Date.UTC(2026, 0, 16, 0, 1, 0));
    await limiter.consume('other', noDaily, 1);
    expect(limiter.trackedAccounts()).toBe(1);
  });

  it('rejects invalid compute units', async () => {
    const limiter = createMemoryLimiter();
    await expect(limiter.consume('a', free, -1)).rejects.toThrow(RangeError);
    await expect(limiter.consume('a', free, Number.NaN)).rejects.toThrow(RangeError);
  });
});

describe('rate limit headers', () => {
  it('shows all three budgets, and Retry-After only when refused', async () => {
    const clock = fakeClock();
    const limiter = createMemoryLimiter({ now: clock.now });
    const reset = String(Math.floor(clock.now() / 1000) + 1);
    expect(rateLimitHeaders(await limiter.consume('a', free, 7))).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '9',
      'X-RateLimit-Reset': reset,
      'X-RateLimit-Limit-Day': '100000',
      'X-RateLimit-Remaining-Day': '99999',
      'X-RateLimit-Limit-CU': '200',
      'X-RateLimit-Remaining-CU': '193',
    });
    const refused = rateLimitHeaders(await limiter.consume('a', free, 1_000));
    expect(refused['Retry-After']).toBe('1');
    expect(refused['X-RateLimit-Remaining']).toBe('9');
  });

  it('omits the pair of an unlimited limit and gives the daily Retry-After', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 15, 0, 0, 0, 0));
    const limiter = createMemoryLimiter({ now: clock.now });
    const limits = { rps: null, rpd: 1, cups: null };
    const ok = rateLimitHeaders(await limiter.consume('a', limits, 1));
    expect(ok).toEqual({
      'X-RateLimit-Reset': String(clock.now() / 1000 + 1),
      'X-RateLimit-Limit-Day': '1',
      'X-RateLimit-Remaining-Day': '0',
    });
    const refused = rateLimitHeaders(await limiter.consume('a', limits, 1));
    expect(refused['Retry-After']).toBe('86400');
  });
});
