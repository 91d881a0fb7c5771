import { Redis } from 'ioredis';
import { AppError } from '../core/errors.ts';
import { redisConnectTimeoutMs } from '../core/optional-redis.ts';
import { redisServerOf, whileReachable } from '../core/redis-reachability.ts';
import { assertComputeUnits, assertSomeBudget, buildBudgetsDecision, buildDecision, refusingBudget } from './decision.ts';
import type { Budget, BudgetsDecision, ConsumeLimits, LimitName, RateLimiter } from './limiter.ts';
import { budgetArgs, budgetKeys, consumeBudgetsScript } from './redis-budgets-script.ts';

const keyPrefix = 'blockyard:rl:';
const commandName = 'blockyardConsume';
const budgetsCommandName = 'blockyardConsumeBudgets';
const commandTimeoutMs = 500;

/**
 * One script checks and counts all three windows atomically (Redis runs a script to completion before
 * any other command), on the server's clock so every process agrees on window boundaries.
 *
 * KEYS[1] = second hash {w = unix second, r = requests, c = compute units}
 * KEYS[2] = day hash    {w = UTC day number, r = requests}
 * ARGV    = rps limit, cups limit, rpd limit (-1 = unlimited), compute units
 * Returns { exceeded (0 none, 1 rps, 2 cups, 3 rpd), requests, cu, day requests, unix s, microseconds }
 * after counting (when allowed) or untouched (when refused). The window id inside each hash means a
 * stale key is never misread; expiry only reclaims space.
 */
const consumeScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local sec = tonumber(t[1])
local day = math.floor(sec / 86400)
local rps, cups, rpd, cu = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])

local s = redis.call('HMGET', KEYS[1], 'w', 'r', 'c')
local used, usedCu = 0, 0
if tonumber(s[1]) == sec then used, usedCu = tonumber(s[2]) or 0, tonumber(s[3]) or 0 end
local d = redis.call('HMGET', KEYS[2], 'w', 'r')
local usedDay = 0
if tonumber(d[1]) == day then usedDay = tonumber(d[2]) or 0 end

local exceeded = 0
if rps >= 0 and used + 1 > rps then exceeded = 1
elseif cups >= 0 and usedCu + cu > cups then exceeded = 2
elseif rpd >= 0 and usedDay + 1 > rpd then exceeded = 3 end

if exceeded == 0 then
  if rps >= 0 or cups >= 0 then
    used, usedCu = used + 1, usedCu + cu
    redis.call('HSET', KEYS[1], 'w', sec, 'r', used, 'c', usedCu)
    redis.call('EXPIREAT', KEYS[1], sec + 2)
  end
  if rpd >= 0 then
    usedDay = usedDay + 1
    redis.call('HSET', KEYS[2], 'w', day, 'r', usedDay)
    redis.call('EXPIREAT', KEYS[2], (day + 1) * 86400 + 60)
  end
end
return { exceeded, used, usedCu, usedDay, sec, tonumber(t[2]) }
`;

type ScriptReply = [number, number, number, number, number, number];
type ClientWithScript = Redis & {
  [commandName](secondKey: string, dayKey: string, rps: number, cups: number, rpd: number, cu: number): Promise<ScriptReply>;
  [budgetsCommandName](numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
};

/** Script codes 1..3, in the contract's order. */
const exceededNames: readonly LimitName[] = ['rps', 'cups', 'rpd'];

export type RedisLimiterOptions = { url: string } | { client: Redis };

/**
 * Counters in Redis, exact across processes: limiters on the same Redis share each account's budget.
 * Keys are `blockyard:rl:{accountId}:s` and `:d`; the hash tag keeps an account's keys in one Cluster slot
 * (a key's own budget too: `blockyard:rl:{accountId}:key:<keyId>:s`, see redis-budgets-script.ts).
 * A client passed in stays the caller's (close() leaves it open); a URL makes a client that close() quits.
 */
export function createRedisLimiter(options: RedisLimiterOptions): RateLimiter {
  const ownsClient = 'url' in options;
  const client = (
    ownsClient
      ? new Redis(options.url, {
          enableAutoPipelining: true,
          maxRetriesPerRequest: 2,
          // A Redis that is down or stopped (accepting, never answering) costs a request at most this:
          // it is then the 503 below, within the 2 s a client waits during an outage.
          commandTimeout: commandTimeoutMs,
          connectTimeout: redisConnectTimeoutMs,
          // Back within a second of Redis's return.
          retryStrategy: (attempt) => Math.min(attempt * 50, 1_000),
        })
      : options.client
  ) as ClientWithScript;
  client.defineCommand(commandName, { numberOfKeys: 2, lua: consumeScript });
  client.defineCommand(budgetsCommandName, { lua: consumeBudgetsScript });
  // A lost connection shows as the 503 of each request meanwhile (ioredis reconnects by itself);
  // without a listener ioredis would print every reconnect failure to the console.
  if (ownsClient) client.on('error', () => undefined);
  const server = redisServerOf(client);

  async function consume(accountId: string, limits: ConsumeLimits, computeUnits: number) {
    assertComputeUnits(computeUnits);
    const tag = `${keyPrefix}{${accountId}}`;
    let reply: ScriptReply;
    try {
      reply = await whileReachable(server, () =>
        client[commandName](`${tag}:s`, `${tag}:d`, limits.rps ?? -1, limits.cups ?? -1, limits.rpd ?? -1, computeUnits),
      );
    } catch (error) {
      throw unavailable(error);
    }
    const [exceededCode, used, usedCu, usedDay, sec, usec] = reply;
    const exceeded = exceededCode === 0 ? undefined : exceededNames[exceededCode - 1];
    const nowMs = sec * 1000 + Math.floor(usec / 1000);
    return buildDecision(limits, exceeded, used, usedCu, usedDay, computeUnits, nowMs);
  }

  async function consumeAll(budgets: readonly Budget[], computeUnits: number): Promise<BudgetsDecision> {
    assertSomeBudget(budgets);
    assertComputeUnits(computeUnits);
    const keys = budgetKeys(keyPrefix, budgets);
    let reply: number[];
    try {
      reply = await whileReachable(server, () =>
        client[budgetsCommandName](keys.length, ...keys, ...budgetArgs(budgets, computeUnits)),
      );
    } catch (error) {
      throw unavailable(error);
    }
    const nowMs = reply[0]! * 1000 + Math.floor(reply[1]! / 1000);
    const counts = budgets.map((_, i) => {
      const [code, usedRps, usedCu, usedDay] = reply.slice(2 + 4 * i, 6 + 4 * i) as [number, number, number, number];
      return { exceeded: code === 0 ? undefined : exceededNames[code - 1], usedRps, usedCu, usedDay };
    });
    const refusedBy = refusingBudget(counts.map((c) => c.exceeded));
    return buildBudgetsDecision(budgets, counts, refusedBy, computeUnits, nowMs);
  }

  return {
    consume,
    consumeAll,
    async close() {
      if (ownsClient) await client.quit();
    },
  };
}

/** Nothing is served uncounted (fail closed), but the client is told it is temporary. */
function unavailable(cause: unknown): AppError {
  return new AppError('service_unavailable', 'rate limiting is unavailable (its Redis cannot be reached); retry shortly', {
    cause,
    headers: { 'retry-after': '1' },
  });
}
