import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Blockyard before the runtime issue kept its embedded database in `<data dir>/pglite` (PGlite, Postgres
 * compiled to WebAssembly). This version cannot read those files; say what to do instead of starting an
 * empty database beside them as if nothing were there.
 */
export function assertNoPgliteDatabase(dataDir: string): void {
  const old = join(dataDir, 'pglite');
  if (!existsSync(join(old, 'PG_VERSION'))) return;
  throw new Error(
    `${dataDir} was made by an earlier Blockyard whose embedded database (PGlite, in ${old}) this version cannot read: ` +
      `it now runs a real Postgres in ${join(dataDir, 'postgres')}. The accounts and keys in the old database are not carried over.\n` +
      `  To start with a new database and keep the devnet's chain (it is indexed again): mv ${old} ${old}.old\n` +
      `  To start completely afresh: rm -rf ${dataDir}\n` +
      '  Or point DATABASE_URL at a Postgres server.',
  );
}
