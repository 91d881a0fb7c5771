import pg from 'pg';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';

/** How often a standby asks for the lease again: a dead holder's lease is taken within about this. */
const standbyRetryMs = 1_000;
/** How often the holder checks that its session (and so the lock) still exists. */
const leaseCheckMs = 1_000;
/**
 * A check (or a standby's ask) not answered within this means the database cannot be reached: the
 * holder stops acting as one at once, before the server frees the lock for another process.
 */
const leaseCheckDeadlineMs = 3_000;
const connectTimeoutMs = 3_000;
/**
 * The server ends a lease session that sent nothing for this long (Postgres' idle_session_timeout),
 * so a holder cut off from it (a partition, a frozen host) frees the lock without TCP keepalives,
 * which take hours. Longer than the check interval plus its deadline: the holder has stopped by then.
 */
const idleSessionTimeoutMs = 5_000;

export type LeaseRole = 'indexer' | 'bundler';

export interface IndexerLease {
  /** Resolves once this process holds the lease (never, if released first). */
  readonly acquired: Promise<void>;
  /**
   * Resolves when the lease is over: released, or lost (its session ended, or a check got no answer
   * within its deadline, so another process may hold it now). Never rejects.
   */
  readonly ended: Promise<void>;
  release(): Promise<void>;
}

export interface LeaseTarget {
  /** The database's URL: the lease has a connection of its own, outside the pool. */
  readonly url: string;
  /** Where `blockyard_lease_held` is reported; absent: not reported. */
  readonly registry?: Registry;
}

/**
 * One active indexer (or bundler) per network across processes: a session-level Postgres advisory
 * lock held on a connection of its own. Other processes stand by and take over when the holder's
 * session ends (it stopped, died, or went silent past idle_session_timeout).
 */
export function acquireIndexerLease(
  target: LeaseTarget,
  network: string,
  logger: Logger,
  role: LeaseRole = 'indexer',
): IndexerLease {
  let releaseRequested = false;
  let wake: (() => void) | undefined;
  /** Waits `ms`, or less if the lease is released meanwhile. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let markAcquired: () => void = () => undefined;
  const acquired = new Promise<void>((resolve) => {
    markAcquired = resolve;
  });
  // The indexer's key is the one it always had, so a rolling upgrade keeps one indexer per network.
  const key = role === 'indexer' ? `blockyard-indexer:${network}` : `blockyard-${role}:${network}`;
  const held = target.registry ? leaseGauge(target.registry).labels(role, network) : undefined;
  held?.set(0);

  async function hold(): Promise<void> {
    let announcedStandby = false;
    let announcedUnreachable = false;
    while (!releaseRequested) {
      let client: pg.Client | undefined;
      try {
        client = await connect(target.url);
        while (!releaseRequested) {
          const { rows } = await withDeadline(
            client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [key]),
          );
          announcedUnreachable = false;
          if (rows[0]?.ok) break;
          if (!announcedStandby) logger.info({ network, role }, `another process runs the ${role} of this network; standing by`);
          announcedStandby = true;
          await pause(standbyRetryMs);
        }
      } catch (error) {
        // Once per outage: a standby asks every second.
        if (!announcedUnreachable)
          logger.warn({ err: error, network, role }, `${role} lease: the database did not answer; asking again every second`);
        announcedUnreachable = true;
        drop(client);
        await pause(standbyRetryMs);
        continue;
      }
      if (releaseRequested) return void (await client.end().catch(() => undefined));
      logger.info({ network, role }, `${role} lease acquired: this process runs the ${role} of the network`);
      held?.set(1);
      markAcquired();
      try {
        // The lock lives as long as this session: a failing or unanswered check means it may be gone.
        while (!releaseRequested) {
          await pause(leaseCheckMs);
          if (!releaseRequested) await withDeadline(client.query('select 1'));
        }
        await withDeadline(client.query('select pg_advisory_unlock(hashtext($1))', [key])).catch(() => undefined);
        await client.end().catch(() => undefined);
      } catch (error) {
        logger.error({ err: error, network, role }, `${role} lease lost with its database connection: ${role} stopped`);
        drop(client);
      } finally {
        held?.set(0);
      }
      return;
    }
  }

  const ended = hold().catch((error: unknown) => logger.error({ err: error, network, role }, `${role} lease failed`));
  return {
    acquired,
    ended,
    async release() {
      releaseRequested = true;
      wake?.();
      await ended;
    },
  };
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true });
  // A broken connection fails the next query; without a listener its 'error' would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await withDeadline(client.query(`set idle_session_timeout = ${idleSessionTimeoutMs}`));
  } catch (error) {
    drop(client);
    throw error;
  }
  return client;
}

/** Closes a connection that may hang: `end()` destroys the socket when a query is still waiting. */
function drop(client: pg.Client | undefined) {
  client?.end().catch(() => undefined);
}

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the database did not answer within ${leaseCheckDeadlineMs} ms`)),
      leaseCheckDeadlineMs,
    );
  });
  work.catch(() => undefined); // lost after the deadline: the connection is dropped
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function leaseGauge(registry: Registry): Gauge<'role' | 'network'> {
  return (
    (registry.getSingleMetric('blockyard_lease_held') as Gauge<'role' | 'network'> | undefined) ??
    new Gauge({
      name: 'blockyard_lease_held',
      help: 'Whether this process holds the lease of a role on a network (1) or stands by (0)',
      labelNames: ['role', 'network'],
      registers: [registry],
    })
  );
}
