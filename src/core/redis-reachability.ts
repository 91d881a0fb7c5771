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
 * misses must not turn the limiter's next answers into 503s. Marking the server away also ends every
 * command still waiting on it: with auto-pipelining, a command issued while a pipeline is on the wire
 * is only sent once that one is answered, so without this it would wait a second timeout after the
 * first (a burst of requests during a hang took 1 s instead of 0.5).
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
  const waiting = waitingOn.get(server) ?? new Set<GiveUp>();
  waitingOn.set(server, waiting);
  let giveUp: GiveUp = () => undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      giveUp = reject;
      waiting.add(giveUp);
      command().then(resolve, reject);
    });
  } catch (error) {
    if (options.marksAway && error instanceof Error && error.message === 'Command timed out') markAway(server);
    throw error;
  } finally {
    waiting.delete(giveUp);
    if (waiting.size === 0) waitingOn.delete(server);
  }
}

type GiveUp = (error: Error) => void;

/** Per server, the commands under way: each is given up when the server is marked away. */
const waitingOn = new Map<string, Set<GiveUp>>();

function markAway(server: string): void {
  awayUntil.set(server, Date.now() + awayForMs);
  const error = new RedisAwayError(server);
  for (const giveUp of waitingOn.get(server) ?? []) giveUp(error);
}
