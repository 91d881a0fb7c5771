import { join } from 'node:path';
import type { Context } from '../core/context.ts';
import { type OpenDatabase, openDatabase } from '../db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded/embedded-postgres.ts';
import { assertNoPgliteDatabase } from '../db/embedded/legacy-pglite.ts';

export interface ServiceDatabase {
  readonly database: OpenDatabase;
  /** The embedded server, when DATABASE_URL is not set. */
  readonly embedded?: EmbeddedPostgres;
}

/**
 * DATABASE_URL's server (or `url`: the one of the service this process joins), else the embedded
 * Postgres in `<data dir>/postgres`. Both close through the shutdown registry: the pool first, then
 * the embedded server.
 */
export async function openServiceDatabase(ctx: Context, url = ctx.config.databaseUrl): Promise<ServiceDatabase> {
  const { config, logger, shutdown } = ctx;
  let embedded: EmbeddedPostgres | undefined;
  if (!url) {
    assertNoPgliteDatabase(config.dataDir);
    embedded = await startEmbeddedPostgres({ dir: join(config.dataDir, 'postgres'), logger });
    shutdown.add('embedded postgres', () => embedded?.stop());
  }
  const database = await openDatabase({
    url: url ?? embedded!.url,
    onConnectionError: (error) => logger.warn({ err: error }, 'a pooled database connection broke; it is replaced'),
  });
  shutdown.add('database', () => database.close());
  return { database, embedded };
}
