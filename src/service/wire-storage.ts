import { mkdirSync } from 'node:fs';
import type { Context } from '../context/context.ts';
import { describeDatabaseUrl, type OpenDatabase } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { acquireInstanceLock, type InstanceLock } from './instance-lock.ts';
import { type JoinedService, joinRunningService } from './join-running-service.ts';
import { openServiceDatabase } from './open-service-database.ts';

export interface ServiceStorage {
  /** The service this process joined (`--join`): its database and devnet are used, not started. */
  readonly joined?: JoinedService;
  /** Held while this process runs the data directory's embedded database or devnet. */
  readonly lock?: InstanceLock;
  readonly database: OpenDatabase;
  /** The embedded Postgres's URL (absent with DATABASE_URL or a given database). */
  readonly embeddedDatabaseUrl?: string;
}

/**
 * The data directory, its lock, and the database, migrated: DATABASE_URL's, the joined service's, the
 * one the caller gives (tests), or the embedded Postgres.
 */
export async function wireStorage(ctx: Context, given: OpenDatabase | undefined): Promise<ServiceStorage> {
  const { config, logger, shutdown } = ctx;
  mkdirSync(config.dataDir, { recursive: true });
  const embeddedChain = config.chains.some((chain) => chain.embedded);
  // A joining process uses the running service's database and devnet, and starts neither.
  const joined = config.join ? await joinRunningService(config) : undefined;
  // The embedded database and devnet live in the data directory: one process at a time may run them.
  const runsEmbedded = !joined && ((!given && !config.databaseUrl) || embeddedChain);
  const lock = runsEmbedded ? await acquireInstanceLock(config.dataDir) : undefined;
  if (lock) shutdown.add('data directory lock', () => lock.release());
  if (joined) logger.info({ pid: joined.pid, dataDir: config.dataDir }, 'joining the service running on the data directory');

  const opened = given ? { database: given, embedded: undefined } : await openServiceDatabase(ctx, joined?.databaseUrl);
  const { database } = opened;
  database.onConnectionLost?.((error) => {
    ctx.metrics.dependencyConnectionsLost.inc({ dependency: 'database' });
    logger.warn({ err: error }, 'a pooled database connection broke; it is replaced');
  });
  const embeddedDatabaseUrl = opened.embedded?.url;
  if (embeddedDatabaseUrl) lock?.update({ databaseUrl: embeddedDatabaseUrl });
  const applied = await migrateToLatest(database.db);
  logger.info(
    { database: describeDatabaseUrl(database.url), embedded: embeddedDatabaseUrl !== undefined, applied },
    'database ready',
  );
  return { joined, lock, database, embeddedDatabaseUrl };
}
