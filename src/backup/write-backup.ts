import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { BackupError } from './errors.ts';
import { type BackupManifest, type BackupRecord, encodeRecord } from './records.ts';
import { appliedMigrations, blockyardTables, quoteIdent, sequenceStates, type TableShape } from './schema.ts';
import { createSealingStream } from './sealed-stream.ts';

export interface WriteBackupOptions {
  /** The database to read. */
  url: string;
  /** The file to write; it appears only once complete (written beside it as `<file>.partial` first). */
  file: string;
  passphrase: string;
  /** The 32-byte encryption key the secrets in the database are sealed with. */
  key: Buffer;
  keySource: BackupManifest['keySource'];
}

export interface BackupSummary {
  file: string;
  bytes: number;
  /** The last applied migration: the schema version the restore recreates. */
  migration: string;
  tables: number;
  rows: number;
}

const newline = 0x0a;

/**
 * Writes one sealed file: the applied migrations, each table's rows (COPY ... TO STDOUT, text
 * format) and each sequence, all read in one REPEATABLE READ READ ONLY transaction, so the file
 * is one consistent snapshot even while the service runs; plus the encryption key.
 */
export async function writeBackup(options: WriteBackupOptions): Promise<BackupSummary> {
  const client = new pg.Client({ connectionString: options.url });
  client.on('error', () => undefined); // a broken connection fails the query in progress
  await client.connect();
  const partial = `${options.file}.partial`;
  try {
    await client.query('begin isolation level repeatable read read only');
    // The first statement takes the snapshot; everything after reads the database as it was then.
    const migrations = await appliedMigrations(client);
    if (!migrations?.length)
      throw new BackupError('backup_no_schema', 'this database has no Blockyard schema (no migration was ever applied to it)');
    const manifest: BackupManifest = {
      format: 1,
      createdAt: new Date().toISOString(),
      serverVersion: (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version,
      migrations,
      sequences: await sequenceStates(client),
      keySource: options.keySource,
    };
    const tables = await blockyardTables(client);
    const counts = { tables: 0, rows: 0 };
    const records = Readable.from(encodeAll(snapshotRecords(client, manifest, options.key, tables, counts)));
    await pipeline(records, await createSealingStream(options.passphrase), createWriteStream(partial, { mode: 0o600 }));
    await client.query('commit');
    renameSync(partial, options.file);
    return { file: options.file, bytes: statSync(options.file).size, migration: migrations.at(-1)!, ...counts };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function* encodeAll(records: AsyncIterable<BackupRecord>): AsyncGenerator<Buffer> {
  for await (const record of records) yield encodeRecord(record);
}

async function* snapshotRecords(
  client: pg.Client,
  manifest: BackupManifest,
  key: Buffer,
  tables: TableShape[],
  counts: { tables: number; rows: number },
): AsyncGenerator<BackupRecord> {
  yield { type: 'manifest', manifest };
  yield { type: 'key', key };
  for (const table of tables) {
    yield { type: 'table', table: table.name, columns: table.columns };
    const columns = table.columns.map(quoteIdent).join(', ');
    const copy = client.query(copyTo(`copy ${quoteIdent(table.name)} (${columns}) to stdout`));
    let rows = 0;
    // Text format: one line a row (a newline inside a value is written as \n), and it loads into any Postgres 15 or newer.
    for await (const data of copy as AsyncIterable<Buffer>) {
      for (let at = data.indexOf(newline); at !== -1; at = data.indexOf(newline, at + 1)) rows += 1;
      yield { type: 'data', data };
    }
    counts.tables += 1;
    counts.rows += rows;
    yield { type: 'table_end', rows };
  }
  yield { type: 'end', ...counts };
}
