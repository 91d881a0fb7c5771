import { Redis } from 'ioredis';

/**
 * A TCP connect that gets no answer (the host is down or cut off: packets dropped) is given up after
 * this and tried again (ioredis's default is 10 s): Redis is used again within a few seconds of its return.
 */
export const redisConnectTimeoutMs = 2_000;

/**
 * A client for what Redis only helps with (a shared cache, tip or cap): commands are never queued or
 * retried while Redis is away and each waits at most `commandTimeoutMs`, so the caller's fallback (a
 * miss, this process's own count) answers at once; errors go to that fallback, not to the console; it
 * reconnects on its own, within a second of Redis's return.
 */
export function createOptionalRedisClient(url: string, commandTimeoutMs: number): Redis {
  const client = new Redis(url, {
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: redisConnectTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 50, 1_000),
  });
  client.on('error', () => undefined);
  return client;
}
