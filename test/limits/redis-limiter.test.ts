import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../src/limits/headers.ts';
import type { RateLimiter } from '../../src/limits/limiter.ts';
import { createRedisLimiter } from '../../src/limits/redis-limiter.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';

const free = { rps: 10, rpd: 100_000, cups: 200 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RunningRedis;
let admin: Redis;
let limiter: RateLimiter;

skipWithout(redisServer);

beforeAll(async () => {
  if (redisServer.missing) return;
  redis = await startRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  limiter = createRedisLimiter({ url: redis.url });
});

afterAll(async () => {
  await limiter?.close();
  await admin?.quit();
  await redis?.stop();
});

/** The Redis server's clock in ms (the limiter's windows follow it, not ours). */
async function serverNowMs(): Promise<number> {
  const [s, us] = await admin.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Waits (at most ~2 s) until the server clock is at most 100 ms into a second, so a burst fits one window. */
async function startOfServerSecond(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    const now = await serverNowMs();
    const into = now % 1000;
    if (into <= 100) return Math.floor(now / 1000);
    await sleep(1000 - into + 5);
  }
  throw new Error('could not align to the Redis server second');
}

/** Waits until the server clock has passed into the next second. */
async function nextServerSecond(): Promise<void> {
  await sleep(1000 - ((await serverNowMs()) % 1000) + 20);
}

const account = () => `acct-${randomUUID()}`;

describe('redis limiter', () => {
  it('allows exactly 10 of 50 parallel calls against 10 rps, and refused calls count nothing', async () => {
    const id = account();
    const second = await startOfServerSecond();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.consume(id, free, 1)));
    expect(new Set(decisions.map((d) => d.rps.resetAt))).toEqual(new Set([second + 1])); // one window
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    for (const d of decisions.filter((d) => !d.allowed)) expect(d).toMatchObject({ exceeded: 'rps', retryAfterS: 1 });
    const counted = await admin.hgetall(`blockyard:rl:{${id}}:s`);
    expect(counted).toMatchObject({ w: String(second), r: '10', c: '10' });
    expect(await admin.hget(`blockyard:rl:{${id}}:d`, 'r')).toBe('10');
  });

  it('shares one budget exactly between two limiter instances', async () => {
    const sharedClient = new Redis(redis.url);
    const other = createRedisLimiter({ client: sharedClient });
    const third = createRedisLimiter({ url: redis.url });
    try {
      const id = account();
      await startOfServerSecond();
      const decisions = await Promise.all(
        Array.from({ length: 40 }, (_, i) => [limiter, other, third][i % 3]!.consume(id, free, 1)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    } finally {
      await third.close();
      await other.close();
      expect(sharedClient.status).toBe('ready'); // a client passed in stays the caller's
      await sharedClient.quit();
    }
  });

  it('opens a new window at the next server second', async () => {
    const id = account();
    const limits = { rps: 2, rpd: null, cups: null };
    await startOfServerSecond();
    expect((await limiter.consume(id, limits, 1)).allowed).toBe(true);
    expect((await limiter.consume(id, limits, 1)).allowed).toBe(true);
    const refused = await limiter.consume(id, limits, 1);
    expect(refused).toMatchObject({ allowed: false, exceeded: 'rps', retryAfterS: 1 });
    await nextServerSecond();
    const next = await limiter.consume(id, limits, 1);
    expect(next).toMatchObject({ allowed: true, rps: { remaining: 1 } });
    expect(next.rps.resetAt).toBe(refused.rps.resetAt + 1);
  });

  it('charges compute units, refuses what does not fit, and flags an impossible cost', async () => {
    const id = account();
    const limits = { rps: 10, rpd: null, cups: 100 };
    await startOfServerSecond();
    expect(await limiter.consume(id, limits, 60)).toMatchObject({ allowed: true, cups: { remaining: 40 } });
    expect(await limiter.consume(id, limits, 60)).toMatchObject({ allowed: false, exceeded: 'cups', retryAfterS: 1 });
    expect(await limiter.consume(id, limits, 40)).toMatchObject({ allowed: true, cups: { remaining: 0 }, rps: { remaining: 8 } });
    const impossible = await limiter.consume(account(), limits, 101);
    expect(impossible).toMatchObject({ allowed: false, exceeded: 'cups', costExceedsLimit: true, rps: { remaining: 10 } });
  });

  it('enforces the daily limit with Retry-After until the next UTC midnight (server clock)', async () => {
    const id = account();
    const limits = { rps: 100, rpd: 3, cups: null };
    for (let i = 0; i < 3; i++) expect((await limiter.consume(id, limits, 1)).allowed).toBe(true);
    const refused = await limiter.consume(id, limits, 1);
    const nowS = (await serverNowMs()) / 1000;
    const midnight = (Math.floor(nowS / 86_400) + 1) * 86_400;
    expect(refused).toMatchObject({ allowed: false, exceeded: 'rpd', rpd: { limit: 3, remaining: 0, resetAt: midnight } });
    expect(Math.abs(refused.retryAfterS! - (midnight - nowS))).toBeLessThan(2);
    expect(refused.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(rateLimitHeaders(refused)['Retry-After']).toBe(String(refused.retryAfterS));
    // The daily key expires shortly after the day ends.
    const ttl = await admin.ttl(`blockyard:rl:{${id}}:d`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400 + 60);
  });

  it('never refuses unlimited (null) limits and writes no keys for them', async () => {
    const id = account();
    const unlimited = { rps: null, rpd: null, cups: null };
    const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consume(id, unlimited, 1_000)));
    expect(decisions.every((d) => d.allowed && d.rps.remaining === null && d.cups.limit === null)).toBe(true);
    expect(await admin.exists(`blockyard:rl:{${id}}:s`, `blockyard:rl:{${id}}:d`)).toBe(0);
    expect(rateLimitHeaders(decisions[0]!)).toEqual({ 'X-RateLimit-Reset': String(decisions[0]!.rps.resetAt) });
  });

  it('sets headers from the decision', async () => {
    const id = account();
    await startOfServerSecond();
    const d = await limiter.consume(id, free, 7);
    expect(rateLimitHeaders(d)).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '9',
      'X-RateLimit-Reset': String(d.rps.resetAt),
      'X-RateLimit-Limit-Day': '100000',
      'X-RateLimit-Remaining-Day': '99999',
      'X-RateLimit-Limit-CU': '200',
      'X-RateLimit-Remaining-CU': '193',
    });
  });
});

describe('redis limiter over several budgets (account and key)', () => {
  const keyOf = (limits: { rps?: number | null; rpd?: number | null; cups?: number | null }, id = randomUUID()) => ({
    id: `key:${id}`,
    limits: { rps: null, rpd: null, cups: null, ...limits },
  });

  it("a key's 3 rps under an account's 10, over three limiter instances: exactly 3 of 30 pass, counted in both", async () => {
    const other = createRedisLimiter({ url: redis.url });
    const third = createRedisLimiter({ url: redis.url });
    try {
      const acct = { id: account(), limits: free };
      const key = keyOf({ rps: 3, rpd: 1_000 });
      const second = await startOfServerSecond();
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => [limiter, other, third][i % 3]!.consumeAll([acct, key], 2)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
      for (const d of decisions.filter((d) => !d.allowed)) {
        expect(d).toMatchObject({ refusedBy: 1, decisions: [{ rps: { remaining: 7 } }, { exceeded: 'rps', retryAfterS: 1 }] });
      }
      // The key's hashes carry the account's hash tag (one Cluster slot); refusals counted nothing in either.
      expect(await admin.hgetall(`blockyard:rl:{${acct.id}}:s`)).toMatchObject({ w: String(second), r: '3', c: '6' });
      expect(await admin.hgetall(`blockyard:rl:{${acct.id}}:${key.id}:s`)).toMatchObject({ w: String(second), r: '3', c: '6' });
      expect(await admin.hget(`blockyard:rl:{${acct.id}}:${key.id}:d`, 'r')).toBe('3');
      // Another key of the same account still passes, and so does the account alone.
      expect((await limiter.consumeAll([acct, keyOf({ rps: 3 })], 1)).allowed).toBe(true);
      expect(await limiter.consume(acct.id, acct.limits, 1)).toMatchObject({ allowed: true, rps: { remaining: 5 } });
    } finally {
      await Promise.all([other.close(), third.close()]);
    }
  });

  it("a refusal by the account counts nothing in the key's budget; the key's day outweighs the account's second", async () => {
    const acct = { id: account(), limits: { rps: 2, rpd: null, cups: 100 } };
    const key = keyOf({ rpd: 3, cups: 50 });
    await startOfServerSecond();
    expect((await limiter.consumeAll([acct, key], 40)).allowed).toBe(true);
    const overKeyCu = await limiter.consumeAll([acct, key], 40);
    expect(overKeyCu).toMatchObject({
      allowed: false,
      refusedBy: 1,
      decisions: [{}, { exceeded: 'cups', cups: { remaining: 10 } }],
    });
    expect((await limiter.consumeAll([acct, key], 1)).allowed).toBe(true);
    const byAccount = await limiter.consumeAll([acct, key], 1);
    expect(byAccount).toMatchObject({
      allowed: false,
      refusedBy: 0,
      decisions: [{ exceeded: 'rps' }, { rpd: { remaining: 1 } }],
    });
    await nextServerSecond();
    expect((await limiter.consumeAll([acct, key], 1)).allowed).toBe(true);
    expect((await limiter.consumeAll([acct, key], 1)).allowed).toBe(false); // the key's day: 3 used
    const tight = { id: acct.id, limits: { rps: 1, rpd: null, cups: null } };
    const both = await limiter.consumeAll([tight, key], 1);
    expect(both).toMatchObject({ allowed: false, refusedBy: 1, decisions: [{ exceeded: 'rps' }, { exceeded: 'rpd' }] });
    expect(both.decisions[1]!.retryAfterS).toBeGreaterThan(1);
  });

  it('rejects an empty list of budgets and invalid compute units before reaching Redis', async () => {
    await expect(limiter.consumeAll([], 1)).rejects.toThrow(/at least one budget/);
    await expect(limiter.consumeAll([{ id: account(), limits: free }], Number.NaN)).rejects.toThrow(RangeError);
  });
});
