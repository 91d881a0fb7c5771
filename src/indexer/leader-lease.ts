import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';

/** How often a standby indexer asks for the lease again. */
const standbyRetryMs = 5000;
/** How often the holder checks that its session (and so the lock) still exists. */
const leaseCheckMs = 2000;

export interface IndexerLease {
  /** Resolves once this process holds the lease (never, if released or lost first). */
  readonly acquired: Promise<void>;
  /**
   * Resolves when the lease is over: released, or lost with its connection (the server ended the
   * session, so another process may hold it now). Never rejects.
   */
  readonly ended: Promise<void>;
  release(): Promise<void>;
}

/**
 * One active indexer per network across processes: a session-level Postgres advisory lock held on a
 * connection reserved for it. Other processes stand by and take over when the holder's session ends
 * (it stopped or died).
 */
export function acquireIndexerLease(
  db: Kysely<Tables>,
  network: string,
  logger: Logger,
  role: 'indexer' | 'bundler' = 'indexer',
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

  const held = db
    .connection()
    .execute(async (connection) => {
      let announcedStandby = false;
      while (!releaseRequested) {
        const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${key})) as ok`.execute(connection);
        if (rows[0]?.ok) {
          logger.info({ network, role }, `${role} lease acquired: this process runs the ${role} of the network`);
          markAcquired();
          // The lock lives as long as this session: a failing check means the server ended it.
          while (!releaseRequested) {
            await pause(leaseCheckMs);
            if (!releaseRequested) await sql`select 1`.execute(connection);
          }
          await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
          return;
        }
        if (!announcedStandby) logger.info({ network, role }, `another process runs the ${role} of this network; standing by`);
        announcedStandby = true;
        await pause(standbyRetryMs);
      }
    })
    .catch((error) => logger.error({ err: error, network, role }, `${role} lease lost with its database connection`));

  return {
    acquired,
    ended: held,
    async release() {
      releaseRequested = true;
      wake?.();
      await held;
    },
  };
}
