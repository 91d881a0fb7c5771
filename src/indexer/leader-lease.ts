import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';

/** How often a standby indexer asks for the lease again. */
const standbyRetryMs = 5000;

export interface IndexerLease {
  /** Resolves once this process holds the lease (never, if released first). */
  readonly acquired: Promise<void>;
  release(): Promise<void>;
}

/**
 * One active indexer per network across processes: a session-level Postgres advisory lock held on a
 * connection reserved for it. Other processes stand by and take over when the holder's session ends
 * (it stopped or died). PGlite is one process by nature and needs none of this.
 */
export function acquireIndexerLease(db: Kysely<Tables>, network: string, logger: Logger): IndexerLease {
  let releaseRequested = false;
  let wakeStandby: (() => void) | undefined;
  let letGo: (() => void) | undefined;
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let markAcquired: () => void = () => undefined;
  const acquired = new Promise<void>((resolve) => {
    markAcquired = resolve;
  });
  const key = `blockyard-indexer:${network}`;

  const held = db
    .connection()
    .execute(async (connection) => {
      let announcedStandby = false;
      while (!releaseRequested) {
        const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${key})) as ok`.execute(connection);
        if (rows[0]?.ok) {
          logger.info({ network }, 'indexer lease acquired: this process indexes the network');
          markAcquired();
          await released;
          await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
          return;
        }
        if (!announcedStandby) logger.info({ network }, 'another process indexes this network; standing by');
        announcedStandby = true;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, standbyRetryMs);
          wakeStandby = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })
    .catch((error) => logger.error({ err: error, network }, 'indexer lease lost'));

  return {
    acquired,
    async release() {
      releaseRequested = true;
      wakeStandby?.();
      letGo?.();
      await held;
    },
  };
}
