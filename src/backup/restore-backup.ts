import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { type CopyStreamQuery, from as copyFrom } from 'pg-copy-streams';
import { kyselyOnClient } from '../db/kysely-on-client.ts';
import { currentMigrationName, migrateToInOpenTransaction, migrationNames } from '../db/migrate.ts';
import { BackupError } from './errors.ts';
import type { KeyInstall } from './key-file.ts';
import { type BackupManifest, type BackupRecord, readRecords } from './records.ts';
import { appliedMigrations, quoteIdent, tablesWithRows } from './schema.ts';
import { createOpeningStream } from './sealed-stream.ts';

export interface OpenedBackup {
  readonly manifest: BackupManifest;
  /** The 32-byte encryption key the backup's secrets are sealed with. */
  readonly key: Buffer;
  /** The last migration of the backup: the schema version it is loaded into. */
  readonly migration: string;
  /** The records after the key: the tables, then the closing record. Read once, by `loadBackup`. */
  readonly records: AsyncGenerator<BackupRecord>;
  close(): void;
}

export interface RestoreSummary {
  createdAt: string;
  migration: string;
  tables: number;
  rows: number;
}

type Records = AsyncGenerator<BackupRecord>;

/** How long a failed restore waits for its ROLLBACK before it closes the connection instead. */
const rollbackWaitMs = 10_000;

/**
 * Opens a backup far enough to refuse it before any database is touched: a wrong passphrase, a file
 * that is not a backup, a backup newer than this build. The rest is read (and authenticated, chunk
 * by chunk) as `loadBackup` loads it.
 */
export async function openBackup(file: string, passphrase: string): Promise<OpenedBackup> {
  const input = createReadStream(file);
  const plaintext = input.pipe(createOpeningStream(passphrase));
  input.on('error', (error) => plaintext.destroy(error));
  const records = readRecords(plaintext);
  const close = () => {
    plaintext.destroy();
    input.destroy();
  };
  try {
    const manifest = (await nextRecord(records, 'manifest')).manifest;
    const { key } = await nextRecord(records, 'key');
    return { manifest, key, migration: assertKnownMigrations(manifest.migrations.map(currentMigrationName)), records, close };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * Loads an opened backup into an empty database: the migrations up to the backup's, every table
 * (COPY ... FROM STDIN) and every sequence, in one transaction, staging the key (`install`) before it
 * commits. Any failure (a chunk that does not authenticate, a truncated file, a row Postgres
 * refuses) rolls it all back and leaves no key staged; the caller commits the key after.
 */
export async function loadBackup(backup: OpenedBackup, url: string, install: KeyInstall): Promise<RestoreSummary> {
  const counts = await loadIntoDatabase(url, backup.manifest, backup.migration, backup.records, install);
  return { createdAt: backup.manifest.createdAt, migration: backup.migration, ...counts };
}

async function loadIntoDatabase(
  url: string,
  manifest: BackupManifest,
  migration: string,
  records: Records,
  install: KeyInstall,
): Promise<{ tables: number; rows: number }> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // a broken connection fails the query in progress
  await client.connect();
  try {
    await assertRestorable(client, manifest.migrations.map(currentMigrationName));
    await client.query('begin');
    const copying: { current?: CopyStreamQuery } = {};
    try {
      await migrateToInOpenTransaction(kyselyOnClient(client), migration);
      const counts = await loadTables(client, records, copying);
      for (const sequence of manifest.sequences) {
        await client.query('select setval($1::regclass, $2::bigint, $3)', [
          quoteIdent(sequence.name),
          sequence.lastValue,
          sequence.isCalled,
        ]);
      }
      install.stage();
      await client.query('commit');
      return counts;
    } catch (error) {
      install.abandon();
      // A COPY still open must be failed before the connection takes another statement.
      copying.current?.destroy(error as Error);
      // Should the rollback not come back, ending the session (finally, below) rolls it back as well.
      await Promise.race([
        client.query('rollback').catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, rollbackWaitMs).unref()),
      ]);
      throw error;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The backup's migrations must be this build's first ones, in order; returns the last. */
function assertKnownMigrations(backup: string[]): string {
  const unknown = backup.filter((name) => !migrationNames.includes(name));
  if (unknown.length > 0)
    throw new BackupError(
      'backup_newer_than_build',
      `the backup was taken by a newer Blockyard: its migrations ${unknown.join(', ')} are not in this build; restore it with that version or newer`,
    );
  const last = backup.at(-1);
  if (!last || backup.some((name, at) => migrationNames[at] !== name))
    throw new BackupError('backup_damaged', "the backup's migrations are not in the order this build applies them");
  return last;
}

async function assertRestorable(client: pg.Client, backupMigrations: string[]): Promise<void> {
  const past = ((await appliedMigrations(client)) ?? []).filter((name) => !backupMigrations.includes(name));
  if (past.length > 0)
    throw new BackupError(
      'restore_database_not_empty',
      `the target database is migrated past the backup (it has ${past.at(-1)}); restore into an empty database`,
    );
  const filled = await tablesWithRows(client);
  if (filled.length > 0)
    throw new BackupError(
      'restore_database_not_empty',
      `the target database already has rows (in ${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', ...' : ''}); restore into an empty database (a new one, or a new data directory), never over a live one`,
    );
}

/** Each table's COPY FROM fed with its data records; the row counts are checked against the backup's. */
async function loadTables(
  client: pg.Client,
  records: Records,
  copying: { current?: CopyStreamQuery },
): Promise<{ tables: number; rows: number }> {
  let done: Promise<void> | undefined;
  let ended: { tables: number; rows: number } | undefined;
  const counts = { tables: 0, rows: 0 };
  for await (const record of records) {
    if (ended) throw damaged('there are records after the last one');
    if (record.type === 'table') {
      if (copying.current) throw damaged(`table ${record.table} starts inside another table`);
      const columns = record.columns.map(quoteIdent).join(', ');
      const copy = client.query(copyFrom(`copy ${quoteIdent(record.table)} (${columns}) from stdin`));
      copying.current = copy;
      done = finished(copy);
      done.catch(() => undefined); // awaited at the table's end, or abandoned with the transaction
    } else if (record.type === 'data') {
      const copy = copying.current;
      if (!copy) throw damaged('rows outside a table');
      if (!copy.write(record.data)) await Promise.race([once(copy, 'drain'), done]);
    } else if (record.type === 'table_end') {
      const copy = copying.current;
      if (!copy) throw damaged('a table ends that did not start');
      copy.end();
      await done;
      copying.current = undefined;
      if (copy.rowCount !== record.rows)
        throw damaged(`a table loaded ${copy.rowCount} rows where the backup has ${record.rows}`);
      counts.tables += 1;
      counts.rows += copy.rowCount;
    } else if (record.type === 'end') {
      if (copying.current || record.tables !== counts.tables || record.rows !== counts.rows)
        throw damaged(
          `it ends with ${record.tables} tables and ${record.rows} rows, not the ${counts.tables} and ${counts.rows} read`,
        );
      ended = record;
    } else {
      throw damaged(`a ${record.type} record in the tables`);
    }
  }
  // The loop ends only once the whole file has been read and its last chunk authenticated.
  if (!ended) throw damaged('its closing record is missing');
  return counts;
}

async function nextRecord<T extends BackupRecord['type']>(
  records: Records,
  type: T,
): Promise<Extract<BackupRecord, { type: T }>> {
  const next = await records.next();
  if (next.done || next.value.type !== type) throw damaged(`the ${type} record is missing`);
  return next.value as Extract<BackupRecord, { type: T }>;
}

const damaged = (message: string) => new BackupError('backup_damaged', `the backup's contents make no sense: ${message}`);
