import { createHash } from 'node:crypto';
import { createOptionalRedisClient } from '../../core/optional-redis.ts';
import { redisServerOf, whileReachable } from '../../core/redis-reachability.ts';

/** Final answers shared by every API process: a second layer behind the in-process LRU. */
export interface RedisAnswerStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, raw: string): void;
  close(): Promise<void>;
}

const keyPrefix = 'blockyard:rpc:';
/** Final answers never change; the expiry only returns space from networks or methods no longer asked. */
const ttlS = 24 * 3600;
/** A slow Redis must not be slower than asking the upstream. */
const commandTimeoutMs = 250;
/** Long keys (eth_call data) are hashed: Redis keys stay short. */
const maxPlainKeyLength = 200;

/**
 * Redis is a cache here, never a dependency: any failure reads as a miss and writes are fire and forget.
 * @example const store = createRedisAnswerStore(process.env.REDIS_URL); await store.get('ethereum/mainnet\neth_chainId:[]');
 */
export function createRedisAnswerStore(url: string): RedisAnswerStore {
  // While Redis is away every lookup is a miss.
  const client = createOptionalRedisClient(url, commandTimeoutMs);
  const server = redisServerOf(client);
  const redisKey = (key: string) =>
    keyPrefix + (key.length > maxPlainKeyLength ? createHash('sha256').update(key).digest('base64url') : key);

  return {
    async get(key) {
      try {
        return (await whileReachable(server, () => client.get(redisKey(key)), { marksAway: false })) ?? undefined;
      } catch {
        return undefined;
      }
    },
    set(key, raw) {
      client.set(redisKey(key), raw, 'EX', ttlS).catch(() => undefined);
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
