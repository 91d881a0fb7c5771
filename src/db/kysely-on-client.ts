import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';

/**
 * A Kysely whose every query runs on `client`, so it shares the transaction the caller began on
 * it (a pool would hand out other connections). Destroying it leaves the client open.
 */
// biome-ignore lint/suspicious/noExplicitAny: used for migrations, which run on any schema
export function kyselyOnClient(client: pg.ClientBase): Kysely<any> {
  const borrowed = { query: client.query.bind(client), release: () => undefined };
  return new Kysely({
    dialect: new PostgresDialect({ pool: { connect: async () => borrowed, end: async () => undefined } as never }),
  });
}
