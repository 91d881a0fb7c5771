// The backup file's sealing and records, without a database: what is refused, and with which code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { planKeyInstall } from '../../src/backup/key-file.ts';
import { type BackupManifest, encodeRecord } from '../../src/backup/records.ts';
import { openBackup } from '../../src/backup/restore-backup.ts';
import { orderByReferences } from '../../src/backup/schema.ts';
import { chunkBytes, createOpeningStream, createSealingStream } from '../../src/backup/sealed-stream.ts';
import { migrationNames } from '../../src/db/migrate.ts';

/** Cheap key derivation for tests; files written by the CLI use scrypt's full cost. */
const testCost = { log2N: 10, r: 8, p: 1 };
const header = 56;
const frame = 4 + chunkBytes + 16;

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

async function seal(plain: Buffer, passphrase = 'pass'): Promise<Buffer> {
  return collect(
    Readable.from([plain.subarray(0, 1000), plain.subarray(1000)]).pipe(await createSealingStream(passphrase, testCost)),
  );
}

const open = (sealed: Buffer, passphrase = 'pass') => collect(Readable.from([sealed]).pipe(createOpeningStream(passphrase)));

describe('sealed backup stream', () => {
  const plain = Buffer.alloc(3 * chunkBytes + 123, 0x61);

  it('opens what it sealed, in chunks of 64 KiB, with the passphrase only', async () => {
    const sealed = await seal(plain);
    expect(sealed.length).toBe(header + 3 * frame + (4 + 123 + 16));
    expect(await open(sealed)).toEqual(plain);
    await expect(open(sealed, 'other')).rejects.toMatchObject({ code: 'backup_wrong_passphrase' });
  });

  it('refuses a changed byte, a dropped, swapped or replayed chunk, a cut, and bytes after the end', async () => {
    const sealed = await seal(plain);
    const changed = Buffer.from(sealed);
    changed[header + frame + 10]! ^= 1;
    await expect(open(changed)).rejects.toMatchObject({ code: 'backup_damaged', message: expect.stringContaining('chunk 1') });
    const chunk = (n: number) => sealed.subarray(header + n * frame, header + (n + 1) * frame);
    const tail = sealed.subarray(header + 3 * frame);
    const head = sealed.subarray(0, header);
    await expect(open(Buffer.concat([head, chunk(0), chunk(2), tail]))).rejects.toMatchObject({ code: 'backup_damaged' });
    await expect(open(Buffer.concat([head, chunk(1), chunk(0), chunk(2), tail]))).rejects.toMatchObject({
      code: 'backup_damaged',
    });
    await expect(open(Buffer.concat([head, chunk(0), chunk(0), chunk(2), tail]))).rejects.toMatchObject({
      code: 'backup_damaged',
    });
    // Cut at a chunk's end: every chunk left authenticates, but the flagged last one is missing.
    await expect(open(sealed.subarray(0, header + 2 * frame))).rejects.toMatchObject({ code: 'backup_truncated' });
    await expect(open(sealed.subarray(0, sealed.length - 5))).rejects.toMatchObject({ code: 'backup_truncated' });
    await expect(open(sealed.subarray(0, 30))).rejects.toMatchObject({ code: 'backup_truncated' });
    await expect(open(Buffer.concat([sealed, Buffer.from([0])]))).rejects.toMatchObject({ code: 'backup_damaged' });
  });

  it('tells a file that is not a backup, and one from another passphrase, from damage', async () => {
    await expect(open(Buffer.from('PGDMP custom dump, not ours'.repeat(4)))).rejects.toMatchObject({
      code: 'backup_not_a_backup',
    });
    await expect(open(Buffer.alloc(0))).rejects.toMatchObject({ code: 'backup_not_a_backup' });
    // The last chunk of another file, under this file's header, fails: the header is every chunk's associated data.
    const other = await seal(plain);
    const sealed = await seal(plain);
    const spliced = Buffer.concat([sealed.subarray(0, header + 3 * frame), other.subarray(header + 3 * frame)]);
    await expect(open(spliced)).rejects.toMatchObject({ code: 'backup_damaged' });
  });
});

describe('restore checks that need no database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-backup-format-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const writeBackupFile = async (manifest: Partial<BackupManifest>) => {
    const records = [
      encodeRecord({
        type: 'manifest',
        manifest: {
          format: 1,
          createdAt: new Date().toISOString(),
          serverVersion: '18',
          migrations: [],
          sequences: [],
          keySource: 'file',
          ...manifest,
        },
      }),
      encodeRecord({ type: 'key', key: Buffer.alloc(32, 7) }),
    ];
    const file = join(dir, `${Math.random().toString(36).slice(2)}.bkp`);
    writeFileSync(file, await seal(Buffer.concat(records)));
    return file;
  };

  it('refuses a backup newer than this build before any database is touched', async () => {
    const file = await writeBackupFile({ migrations: [...migrationNames, '2099-01-01T0000-from-the-future'] });
    await expect(openBackup(file, 'pass')).rejects.toMatchObject({
      code: 'backup_newer_than_build',
      message: expect.stringContaining('2099-01-01T0000-from-the-future'),
    });
  });

  it('opens a backup of an older build: it is loaded at its own migration', async () => {
    const file = await writeBackupFile({ migrations: migrationNames.slice(0, 3) });
    const opened = await openBackup(file, 'pass');
    opened.close();
    expect(opened.migration).toBe(migrationNames[2]);
    expect(opened.key).toEqual(Buffer.alloc(32, 7));
  });

  it('opens a backup that lists a migration by its former name, at the name this build gives it', async () => {
    const renamed = '2026-12-05T1700-mempool-admission-function';
    const upTo = migrationNames.slice(0, migrationNames.indexOf(renamed) + 1);
    const file = await writeBackupFile({ migrations: [...upTo.slice(0, -1), '2026-12-05T1800-mempool-admission-function'] });
    const opened = await openBackup(file, 'pass');
    opened.close();
    expect(opened.migration).toBe(renamed);
  });

  it('refuses a data directory or a setting with another key, and writes the key only when committed', () => {
    const key = Buffer.alloc(32, 9);
    const dataDir = join(dir, 'data');
    const install = planKeyInstall({ dataDir }, key);
    install.stage();
    install.abandon();
    expect(() => planKeyInstall({ dataDir }, key)).not.toThrow();
    install.stage();
    install.commit();
    expect(planKeyInstall({ dataDir }, key).outcome).toContain('already holds the backup key');
    expect(() => planKeyInstall({ dataDir }, Buffer.alloc(32, 1))).toThrow(
      expect.objectContaining({ code: 'restore_key_conflict' }),
    );
    expect(() => planKeyInstall({ dataDir: join(dir, 'other'), encryptionKey: 'ab'.repeat(32) }, key)).toThrow(
      expect.objectContaining({ code: 'restore_key_conflict' }),
    );
  });

  it('loads parents before the tables that refer to them', () => {
    expect(
      orderByReferences(
        ['api_keys', 'accounts', 'wallets', 'events'],
        [
          { child: 'wallets', parent: 'api_keys' },
          { child: 'api_keys', parent: 'accounts' },
          { child: 'events', parent: 'events' },
        ],
      ),
    ).toEqual(['accounts', 'api_keys', 'wallets', 'events']);
  });
});
