import { BackupError } from './errors.ts';

/**
 * The plaintext inside a backup file: records of a type byte, a uint32 length and a payload, in
 * this order: the manifest, the encryption key, then for each table its start, its COPY data in
 * pieces and its end, and one closing record.
 */
export type BackupRecord =
  | { type: 'manifest'; manifest: BackupManifest }
  | { type: 'key'; key: Buffer }
  | { type: 'table'; table: string; columns: string[] }
  | { type: 'data'; data: Buffer }
  | { type: 'table_end'; rows: number }
  | { type: 'end'; tables: number; rows: number };

export interface BackupManifest {
  /** Format of these records. */
  format: 1;
  createdAt: string;
  /** The Postgres server it was read from (`server_version`), for the reader's information. */
  serverVersion: string;
  /** The migrations applied to that database, in order: the restore migrates to the last one. */
  migrations: string[];
  /** Each sequence's state in the snapshot, set again after the rows are loaded. */
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
  /** Where the key came from: `file` (`<data dir>/encryption-key`) or `setting` (BLOCKYARD_ENCRYPTION_KEY). */
  keySource: 'file' | 'setting';
}

const typeBytes = { manifest: 0x4d, key: 0x4b, table: 0x54, data: 0x44, table_end: 0x45, end: 0x5a } as const;
const headBytes = 5;
/** A row larger than this is not one Blockyard writes: a length beyond it means the records are damaged. */
const maxRecordBytes = 256 * 1024 * 1024;

export function encodeRecord(record: BackupRecord): Buffer {
  const payload = payloadOf(record);
  const head = Buffer.alloc(headBytes);
  head[0] = typeBytes[record.type];
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function payloadOf(record: BackupRecord): Buffer {
  switch (record.type) {
    case 'manifest':
      return Buffer.from(JSON.stringify(record.manifest), 'utf8');
    case 'key':
      return record.key;
    case 'data':
      return record.data;
    case 'table':
      return Buffer.from(JSON.stringify({ table: record.table, columns: record.columns }), 'utf8');
    case 'table_end':
      return Buffer.from(JSON.stringify({ rows: record.rows }), 'utf8');
    case 'end':
      return Buffer.from(JSON.stringify({ tables: record.tables, rows: record.rows }), 'utf8');
  }
}

/** The records of the opened plaintext, one at a time; throws `backup_damaged` when they make no sense. */
export async function* readRecords(plaintext: AsyncIterable<Buffer>): AsyncGenerator<BackupRecord> {
  let buffered: Buffer = Buffer.alloc(0);
  for await (const piece of plaintext) {
    buffered = buffered.length === 0 ? piece : Buffer.concat([buffered, piece]);
    while (buffered.length >= headBytes) {
      const length = buffered.readUInt32BE(1);
      if (length > maxRecordBytes) throw malformed(`a record claims ${length} bytes`);
      if (buffered.length < headBytes + length) break;
      yield decodeRecord(buffered[0]!, buffered.subarray(headBytes, headBytes + length));
      buffered = buffered.subarray(headBytes + length);
    }
  }
  if (buffered.length > 0) throw malformed('the last record is incomplete');
}

function decodeRecord(type: number, payload: Buffer): BackupRecord {
  switch (type) {
    case typeBytes.manifest:
      return { type: 'manifest', manifest: parseManifest(payload) };
    case typeBytes.key:
      if (payload.length !== 32) throw malformed('the encryption key is not 32 bytes');
      return { type: 'key', key: Buffer.from(payload) };
    case typeBytes.data:
      return { type: 'data', data: Buffer.from(payload) };
    case typeBytes.table: {
      const { table, columns } = parseJson(payload) as { table?: unknown; columns?: unknown };
      if (typeof table !== 'string' || !Array.isArray(columns) || !columns.every((c) => typeof c === 'string'))
        throw malformed('a table record has no name or columns');
      return { type: 'table', table, columns };
    }
    case typeBytes.table_end:
      return { type: 'table_end', rows: countOf(parseJson(payload), 'rows') };
    case typeBytes.end: {
      const end = parseJson(payload);
      return { type: 'end', tables: countOf(end, 'tables'), rows: countOf(end, 'rows') };
    }
    default:
      throw malformed(`unknown record type ${type}`);
  }
}

function parseManifest(payload: Buffer): BackupManifest {
  const manifest = parseJson(payload) as Partial<BackupManifest>;
  if (manifest.format !== 1) throw malformed(`the records have format ${String(manifest.format)}; this Blockyard reads 1`);
  if (!Array.isArray(manifest.migrations) || !manifest.migrations.every((name) => typeof name === 'string'))
    throw malformed('the manifest lists no migrations');
  if (!Array.isArray(manifest.sequences)) throw malformed('the manifest lists no sequences');
  return manifest as BackupManifest;
}

function parseJson(payload: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    if (value !== null && typeof value === 'object') return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw malformed('a record is not the JSON it should be');
}

function countOf(value: Record<string, unknown>, name: string): number {
  const count = value[name];
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw malformed(`a record has no '${name}' count`);
  return count;
}

const malformed = (message: string) => new BackupError('backup_damaged', `the backup's contents make no sense: ${message}`);
