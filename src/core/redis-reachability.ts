import type { Redis } from 'ioredis';

/**
 * After one command to a Redis server times out (`whileReachable` says which count), every client of
 * that server in this process gives up at once for this long; the first command after it tries again.
 * A request may touch Redis several times (its data-query slot, its rate limit, the answer cache, the
 * shared tip): while Redis hangs, each would otherwise wait its own command timeout, and in sequence
 * they pass the 2 s an answer may take during an outage.
 */
const awayForMs = 1_000;

const awayUntil = new Map<string, number>();

/** Thrown instead of sending a command while the server is taken to be away. */
export class RedisAwayError extends Error {
  constructor(server: string) {
    super(`Redis at ${server} did not answer in time a moment ago; not asked again yet`);
    this.name = 'RedisAwayError';
  }
}

/** The server a client talks to: clients of one server share whether it answers. */
export function redisServerOf(client: Redis): string {
  const { host, port, path, db } = client.options;
  return `${path ?? `${host}:${port}`}/${db ?? 0}`;
}

/**
 * Runs one command of a client of `server`, unless a command to it timed out within `awayForMs`. Only
 * commands with the longest budget (500 ms: the limiter, the data-query slots) mark the server away
 * when they time out: a cache read given 250 ms (`marksAway: false`) that a slow but live Redis
 * misses must not turn the limiter's next answers into 503s.
 */
export async function whileReachable<T>(
  server: string,
  command: () => Promise<T>,
  options: { marksAway: boolean } = { marksAway: true },
): Promise<T> {
  const until = awayUntil.get(server);
  if (until !== undefined) {
    if (until > Date.now()) throw new RedisAwayError(server);
    awayUntil.delete(server);
  }
  try {
    return await command();
  } catch (error) {
    if (options.marksAway && error instanceof Error && error.message === 'Command timed out')
      awayUntil.set(server, Date.now() + awayForMs);
    throw error;
  }
}
