import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Context } from '../context/context.ts';
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
    const supervised = await superviseEmbeddedPostgres(join(config.dataDir, 'postgres'), logger);
    shutdown.add('embedded postgres', () => supervised.stop());
    embedded = supervised.first;
  }
  const database = await openDatabase({
    url: url ?? embedded!.url,
    statementTimeoutMs: config.limits.statementTimeoutMs,
  });
  shutdown.add('database', () => database.close());
  return { database, embedded };
}

const restartDelayMs = 1_000;

/**
 * The embedded server, started again (same directory, port and password: the pool's URL stays valid)
 * whenever it exits without being stopped, e.g. killed by the OOM killer. Requests meanwhile get 503.
 */
async function superviseEmbeddedPostgres(dir: string, logger: Logger) {
  let current = await startEmbeddedPostgres({ dir, logger });
  const first = current;
  let stopped = false;
  let restarting: Promise<void> | undefined;

  const watch = (server: EmbeddedPostgres) => {
    void server.exited.then(() => {
      if (!stopped) restarting = restart(server.url);
    });
  };
  async function restart(url: string) {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, restartDelayMs));
      if (stopped) return;
      try {
        const next = await startEmbeddedPostgres({ dir, logger });
        current = next;
        if (next.url !== url)
          logger.error({ port: next.port }, 'the embedded Postgres came back on another port: restart the service');
        else logger.info({ port: next.port }, 'the embedded Postgres was started again');
        if (stopped) await next.stop();
        else watch(next);
        return;
      } catch (error) {
        logger.warn({ err: error }, 'could not start the embedded Postgres again; retrying');
      }
    }
  }
  watch(current);
  return {
    first,
    async stop() {
      stopped = true;
      await restarting;
      await current.stop();
    },
  };
}
