import type { Redis } from 'ioredis';
import { createOptionalRedisClient } from '../core/optional-redis.ts';
import { redisServerOf, whileReachable } from '../core/redis-reachability.ts';
import type { SharedTipStore } from './shared-tip-store.ts';

const keyPrefix = 'blockyard:tip:';
const commandName = 'blockyardRaiseTip';
/** A tip op rides on requests a client waits for: a slow Redis reads as "this process's tip only". */
const commandTimeoutMs = 250;
/**
 * A tip no process raised for this long is forgotten: a devnet that started over (every process's own
 * tip follows it down after its head tracker's reset) is not held at its old height for long, and a
 * live chain's next block sets it again at once.
 */
const idleExpiryS = 60;

/**
 * Set if greater, return the max, in one atomic step (Redis runs a script to completion before any
 * other command). KEYS[1] = the network's tip key; ARGV = the offered block, the expiry in seconds.
 */
const raiseScript = `
local current = tonumber(redis.call('GET', KEYS[1]))
local offered = tonumber(ARGV[1])
if current == nil or offered > current then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return offered
end
return current
`;

type RaisingRedis = Redis & { [commandName](key: string, block: number, expiryS: number): Promise<number> };

/**
 * The shared tips in Redis: one script call per raise. Never a dependency: any failure answers the
 * offered block, as if this process were alone.
 * @example const tips = createRedisSharedTipStore(process.env.REDIS_URL); await tips.raise('ethereum/mainnet', 21_000_000);
 */
export function createRedisSharedTipStore(url: string): SharedTipStore {
  // While Redis is away every raise answers this process's own tip.
  const client = createOptionalRedisClient(url, commandTimeoutMs) as RaisingRedis;
  client.defineCommand(commandName, { numberOfKeys: 1, lua: raiseScript });
  const server = redisServerOf(client);
  return {
    async raise(network, block) {
      try {
        const shared = Number(
          await whileReachable(server, () => client[commandName](keyPrefix + network, block, idleExpiryS), {
            marksAway: false,
          }),
        );
        return Number.isSafeInteger(shared) && shared > block ? shared : block;
      } catch {
        return block;
      }
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
