/**
 * What `blockyard backup` and `blockyard restore` refuse, each with a stable code (listed in
 * docs/operations.md, "Backup and restore"). The CLI prints the message and exits 1.
 */
export const backupErrorCodes = [
  /** BLOCKYARD_BACKUP_PASSPHRASE is not set (or empty): nothing is prompted for. */
  'backup_passphrase_missing',
  /** Neither `<data dir>/encryption-key` nor BLOCKYARD_ENCRYPTION_KEY: the secrets could not be opened after a restore. */
  'backup_key_missing',
  /** The database has no Blockyard schema (no applied migrations). */
  'backup_no_schema',
  /** The file does not start as a Blockyard backup does, or has a format this build does not read. */
  'backup_not_a_backup',
  /** The passphrase does not open the file (or its header was changed). */
  'backup_wrong_passphrase',
  /** A chunk does not authenticate, is out of order, or the records inside make no sense: changed or damaged. */
  'backup_damaged',
  /** The file ends before its last chunk: cut short (a copy that did not finish, a full disk). */
  'backup_truncated',
  /** The backup was taken by a newer Blockyard: its migrations are not all known to this build. */
  'backup_newer_than_build',
  /** The target database already holds Blockyard rows, or is migrated past the backup. */
  'restore_database_not_empty',
  /** The data directory has another encryption key, or BLOCKYARD_ENCRYPTION_KEY is set to another one. */
  'restore_key_conflict',
] as const;

export type BackupErrorCode = (typeof backupErrorCodes)[number];

export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'BackupError';
  }
}

export function isBackupError(value: unknown): value is BackupError {
  return value instanceof BackupError;
}
