import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createOptionalRedisClient } from '../core/optional-redis.ts';
import { redisServerOf, whileReachable } from '../core/redis-reachability.ts';
import { createDataQuerySlots, type DataQuerySlots, tooManyDataQueries } from './data-query-slots.ts';

const keyPrefix = 'blockyard:dq:';
const commandName = 'blockyardTakeDataSlot';
const commandTimeoutMs = 500;
/**
 * A slot is a lease: renewed while its query runs, so one whose node died (no release ever comes)
 * frees itself this long after its last renewal.
 */
const leaseMs = 30_000;
const renewEveryMs = 10_000;

/**
 * KEYS[1] = the account's sorted set {holder token -> lease end, ms on Redis's clock}
 * ARGV    = cap, token, lease ms. Drops ended leases, then takes a slot when fewer than the cap are
 * held. Returns 1 (taken) or 0 (all held).
 */
const takeScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS[1] as above; ARGV = token, lease ms. Moves the holder's lease end (when it still holds one). */
const renewScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return 1
`;

type SlotsRedis = Redis & {
  [commandName](key: string, cap: number, token: string, leaseMs: number): Promise<number>;
  blockyardRenewDataSlot(key: string, token: string, leaseMs: number): Promise<number>;
};

/**
 * The per-account cap on running data queries shared by every node on one Redis: with three API
 * nodes an account still runs `perAccount` data queries in all, not three times that. Never a reason
 * to refuse a query by itself: while Redis cannot be reached, each node holds the cap on its own.
 */
export function createRedisDataQuerySlots(url: string, perAccount: number): DataQuerySlots {
  // While Redis is away the local cap answers.
  const client = createOptionalRedisClient(url, commandTimeoutMs) as SlotsRedis;
  client.defineCommand(commandName, { numberOfKeys: 1, lua: takeScript });
  client.defineCommand('blockyardRenewDataSlot', { numberOfKeys: 1, lua: renewScript });
  const local = createDataQuerySlots(perAccount);
  const server = redisServerOf(client);

  return {
    async take(accountId) {
      const key = `${keyPrefix}{${accountId}}`;
      const token = randomUUID();
      let taken: number;
      try {
        taken = Number(await whileReachable(server, () => client[commandName](key, perAccount, token, leaseMs)));
      } catch {
        return local.takeNow(accountId);
      }
      if (taken !== 1) throw tooManyDataQueries(perAccount);
      const renewal = setInterval(() => {
        client.blockyardRenewDataSlot(key, token, leaseMs).catch(() => undefined);
      }, renewEveryMs);
      renewal.unref();
      let given = false;
      return () => {
        if (given) return;
        given = true;
        clearInterval(renewal);
        // A release that does not reach Redis ends with its lease.
        client.zrem(key, token).catch(() => undefined);
      };
    },
    async close() {
      await client.quit().catch(() => undefined);
    },
  };
}
