import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BackupError } from '../backup/errors.ts';
import { planKeyInstall, readEncryptionKey } from '../backup/key-file.ts';
import { loadBackup, openBackup } from '../backup/restore-backup.ts';
import { writeBackup } from '../backup/write-backup.ts';
import { loadConfig, readBackupPassphrase } from '../config/load.ts';
import { withCommandDatabase } from './backup-database.ts';
import { parseBackupFlags } from './flags.ts';

const common = `  --data-dir DIR       the data directory (default: BLOCKYARD_DATA_DIR, else ./.blockyard): its embedded
                       Postgres when DATABASE_URL is not set, and its encryption-key file
  --database-url URL   the Postgres server (default: DATABASE_URL, else the embedded one)
  --config FILE        the settings file (default: BLOCKYARD_CONFIG, else ./blockyard.yaml)
  -h, --help           print this and exit

The passphrase is read from BLOCKYARD_BACKUP_PASSPHRASE only (never a flag, never prompted for).
docs/operations.md, "Backup and restore", says what is in the file and how it is sealed.`;

export const backupUsage = `Usage: blockyard backup --out FILE [--data-dir DIR] [--database-url URL] [--config FILE]

Writes one file: a consistent snapshot of every Blockyard table (one REPEATABLE READ transaction, so
the service may keep running) and of its sequences, plus the encryption key that webhook signing
secrets are sealed with, all encrypted with a passphrase (scrypt, AES-256-GCM in authenticated
chunks). Prints JSON: {"database":...,"file":...,"bytes":N,"migration":...,"tables":N,"rows":N}.

Options:
  --out FILE           the file to write (replaced if it exists, only once the new one is complete)
${common}`;

export const restoreUsage = `Usage: blockyard restore --in FILE [--data-dir DIR] [--database-url URL] [--config FILE]

Loads a backup into an empty database: the migrations up to the backup's, every table and sequence,
in one transaction, then writes the backup's encryption key into the data directory. Any failure
(a wrong passphrase, a changed or truncated file) leaves the database as it was and writes no key.
Refuses a database that already has Blockyard rows, a data directory with another key, and a
backup newer than this build. Run blockyard start afterwards: it applies the newer migrations.

Options:
  --in FILE            the backup to read
${common}`;

/** `blockyard backup --out FILE`: the database and the encryption key, sealed with the passphrase. */
export async function runBackup(args: string[]): Promise<number> {
  const { flags, file, help } = parseBackupFlags(args, 'out');
  if (help) return printUsage(backupUsage);
  if (!file) throw usageError('--out FILE is required: where to write the backup');
  checkOutFile(resolve(file));
  const passphrase = requirePassphrase();
  const config = loadConfig({ flags });
  const { key, source } = readEncryptionKey(config);
  const summary = await withCommandDatabase(config, { useRunning: true }, async (url, database) => ({
    database,
    ...(await writeBackup({ url, file: resolve(file), passphrase, key, keySource: source })),
  }));
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return 0;
}

/** `blockyard restore --in FILE`: into an empty database, all or nothing, the key into the data directory. */
export async function runRestore(args: string[]): Promise<number> {
  const { flags, file, help } = parseBackupFlags(args, 'in');
  if (help) return printUsage(restoreUsage);
  if (!file) throw usageError('--in FILE is required: the backup to restore');
  if (!existsSync(file)) throw usageError(`--in ${file}: no such file`);
  const passphrase = requirePassphrase();
  const config = loadConfig({ flags });
  // Refusals that need no database come first: a wrong passphrase, a newer backup, another key.
  const backup = await openBackup(resolve(file), passphrase);
  try {
    const install = planKeyInstall(config, backup.key);
    const summary = await withCommandDatabase(config, { useRunning: false }, async (url, database) => {
      const { createdAt, ...loaded } = await loadBackup(backup, url, install);
      return { database, file: resolve(file), created_at: createdAt, ...loaded };
    });
    install.commit();
    process.stdout.write(`${JSON.stringify({ ...summary, key: install.outcome })}\n`);
    return 0;
  } finally {
    backup.close();
  }
}

/**
 * Refused before the database is read: a backup of a large database takes minutes, and a directory
 * given as --out, or one in a directory that does not exist, failed only at its end (EISDIR, ENOENT).
 */
function checkOutFile(file: string): void {
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw usageError(`--out ${file} is a directory: give the path of the file to write, e.g. ${file}/blockyard.bkp`);
  }
  const directory = dirname(file);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw usageError(`--out ${file}: the directory ${directory} does not exist`);
  }
}

function requirePassphrase(): string {
  const passphrase = readBackupPassphrase();
  if (passphrase) return passphrase;
  throw new BackupError(
    'backup_passphrase_missing',
    'set BLOCKYARD_BACKUP_PASSPHRASE to the passphrase that seals (and later opens) the backup; it is never read from a flag or a prompt',
  );
}

function printUsage(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_PARSE_ARGS_INVALID' });
}
