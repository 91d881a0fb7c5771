import { Redis } from 'ioredis';

/** Whether the configured Redis answers: readiness asks it on every /healthz. */
export interface RedisPing {
  /** Resolves when Redis answered PING within the timeout; rejects saying why not. */
  ping(): Promise<void>;
  /**
   * At start: waits up to `timeoutMs` for the first connection (or its first failure), then pings.
   * Undefined when Redis answers; else why not (`connect ECONNREFUSED 127.0.0.1:6379`, `timed out`).
   */
  problemAtStart(timeoutMs: number): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Well inside /healthz's own bound: a stopped Redis (connections accepted, nothing answered) costs this at most. */
const pingTimeoutMs = 500;

/**
 * A connection of its own (the limiter's queue and retries must not hide an outage): commands are never
 * queued while it is down, so a killed Redis fails the ping at once and a stopped one after the timeout.
 */
export function createRedisPing(url: string, options: { onConnectionLost?: () => void } = {}): RedisPing {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: pingTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // ioredis prints each reconnect failure without a listener; the ping reports the outage.
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  // A connection that was ready and closed without close() being called: Redis restarted, or a cut.
  // Reconnect attempts that fail close too, but were never ready: one loss is told once.
  let ready = false;
  let closing = false;
  client.on('ready', () => {
    ready = true;
  });
  client.on('close', () => {
    if (ready && !closing) options.onConnectionLost?.();
    ready = false;
  });
  const ping = async () => {
    if (client.status !== 'ready') throw new Error(`not connected (${client.status})`);
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`answered ${answer} to PING`);
  };
  return {
    ping,
    async problemAtStart(timeoutMs) {
      if (client.status !== 'ready') await firstOutcome(client, timeoutMs);
      try {
        await ping();
        return undefined;
      } catch (error) {
        return lastError?.message || (error as Error).message;
      }
    },
    async close() {
      closing = true;
      client.disconnect();
    },
  };
}

/** The first connection's outcome: ready, failed, or neither within `timeoutMs` (a host that accepts and never answers). */
function firstOutcome(client: Redis, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once('ready', done);
    client.once('error', done);
  });
}

/**
 * The Redis URL as a log line or a message may show it: scheme, host, port and database, never the
 * user or password.
 * @example describeRedisUrl('redis://user:secret@cache.internal:6380/2') // 'redis://cache.internal:6380/2'
 */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'REDIS_URL (not a valid URL)';
  }
}
