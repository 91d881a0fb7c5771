import { Redis } from 'ioredis';

/** Whether the configured Redis answers: readiness asks it on every /healthz. */
export interface RedisPing {
  /** Resolves when Redis answered PING within the timeout; rejects saying why not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Well inside /healthz's own bound: a stopped Redis (connections accepted, nothing answered) costs this at most. */
const pingTimeoutMs = 500;

/**
 * A connection of its own (the limiter's queue and retries must not hide an outage): commands are never
 * queued while it is down, so a killed Redis fails the ping at once and a stopped one after the timeout.
 */
export function createRedisPing(url: string): RedisPing {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: pingTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // ioredis prints each reconnect failure without a listener; the ping reports the outage.
  client.on('error', () => undefined);
  return {
    async ping() {
      if (client.status !== 'ready') throw new Error(`not connected (${client.status})`);
      const answer = await client.ping();
      if (answer !== 'PONG') throw new Error(`answered ${answer} to PING`);
    },
    async close() {
      client.disconnect();
    },
  };
}
