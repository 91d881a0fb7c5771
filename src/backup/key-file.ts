import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { encryptionKeyPath } from '../webhooks/secrets.ts';
import { BackupError } from './errors.ts';
import type { BackupManifest } from './records.ts';

export interface KeySettings {
  /** BLOCKYARD_ENCRYPTION_KEY (hex), when set: it wins over the file. */
  encryptionKey?: string;
  dataDir: string;
}

/** The key the service seals secrets with, as the service would pick it; never generated here. */
export function readEncryptionKey(settings: KeySettings): { key: Buffer; source: BackupManifest['keySource'] } {
  if (settings.encryptionKey) return { key: Buffer.from(settings.encryptionKey, 'hex'), source: 'setting' };
  const path = encryptionKeyPath(settings.dataDir);
  const stored = readKeyFile(path);
  if (!stored)
    throw new BackupError(
      'backup_key_missing',
      `no encryption key: ${path} does not exist and BLOCKYARD_ENCRYPTION_KEY is not set; point --data-dir at the data directory of the service that uses this database (without its key, webhook signing secrets cannot be opened after a restore)`,
    );
  return { key: stored, source: 'file' };
}

function readKeyFile(path: string): Buffer | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8').trim();
  return /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** How the backup's key gets into place: checked before the database is touched, written only after it committed. */
export interface KeyInstall {
  /** What a reader of the summary is told: the file written, or why none was needed. */
  readonly outcome: string;
  /** Writes the key beside its place (0600); call before the database commits. */
  stage(): void;
  /** Moves the staged key into place; call after the database committed. */
  commit(): void;
  /** Removes what `stage` wrote. */
  abandon(): void;
}

/**
 * Refuses (`restore_key_conflict`) a data directory that holds another key, or a BLOCKYARD_ENCRYPTION_KEY
 * set to another one: the restored secrets would not open under it.
 */
export function planKeyInstall(settings: KeySettings, key: Buffer): KeyInstall {
  const path = encryptionKeyPath(settings.dataDir);
  if (settings.encryptionKey) {
    if (!Buffer.from(settings.encryptionKey, 'hex').equals(key))
      throw new BackupError(
        'restore_key_conflict',
        "BLOCKYARD_ENCRYPTION_KEY is set to another key than the backup's: unset it (the restore writes the backup's key into the data directory) or set it to the backup's key",
      );
    return nothingToWrite('BLOCKYARD_ENCRYPTION_KEY already holds the backup key');
  }
  const existing = readKeyFile(path);
  if (existing?.equals(key)) return nothingToWrite(`${path} already holds the backup key`);
  if (existsSync(path))
    throw new BackupError(
      'restore_key_conflict',
      `${path} holds another encryption key than the backup's; restore into a new data directory, or move that file away first (it belongs to another deployment's secrets)`,
    );
  const staged = `${path}.restoring`;
  return {
    outcome: path,
    stage() {
      mkdirSync(settings.dataDir, { recursive: true });
      writeFileSync(staged, `${key.toString('hex')}\n`, { mode: 0o600 });
    },
    commit() {
      renameSync(staged, path);
    },
    abandon() {
      rmSync(staged, { force: true });
    },
  };
}

function nothingToWrite(outcome: string): KeyInstall {
  return { outcome, stage() {}, commit() {}, abandon() {} };
}
