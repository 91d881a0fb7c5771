import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Encrypts and decrypts webhook signing secrets at rest (AES-256-GCM). The key is the
 * `encryption_key` setting (`BLOCKYARD_ENCRYPTION_KEY`), else one generated once into
 * `<data dir>/encryption-key` (mode 0600): every process that delivers webhooks needs the same key.
 *
 * `v2.` ciphertexts are bound to their webhook's id (GCM associated data), so one copied onto another
 * webhook's row does not open there. `v1.` ones (written before the binding) still open, for any id;
 * the delivery worker rewrites them as `v2.` when it first reads them.
 */
export interface SecretBox {
  seal(plain: string, webhookId: string): string;
  open(sealed: string, webhookId: string): string;
}

/** Sealed before secrets were bound to their webhook: opens without an id check (rewrite it). */
export function isUnboundSecret(sealed: string): boolean {
  return sealed.startsWith('v1.');
}

const associatedData = (webhookId: string) => Buffer.from(`blockyard webhook secret:${webhookId}`, 'utf8');

export function createSecretBox(config: { encryptionKey?: string; dataDir: string }): SecretBox {
  const key = Buffer.from(config.encryptionKey ?? storedKey(config.dataDir), 'hex');
  return {
    seal(plain, webhookId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(associatedData(webhookId));
      const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v2.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${encrypted.toString('base64')}`;
    },
    open(sealed, webhookId) {
      const [version, iv, tag, data] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      if (version === 'v2') decipher.setAAD(associatedData(webhookId));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new Error(
          `the signing secret of webhook ${webhookId} cannot be decrypted: it was stored for another webhook (copied between rows), or this process has another encryption key than the one that stored it (set BLOCKYARD_ENCRYPTION_KEY to the same value in every process)`,
          { cause: error },
        );
      }
    },
  };
}

/** Where the generated key is kept when no `encryption_key` is set: `blockyard backup` copies it. */
export function encryptionKeyPath(dataDir: string): string {
  return join(dataDir, 'encryption-key');
}

function storedKey(dataDir: string): string {
  const path = encryptionKeyPath(dataDir);
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(stored)) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('hex');
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process of the deployment wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8').trim();
    throw error;
  }
}
