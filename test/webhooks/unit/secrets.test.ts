import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretBox, generateSigningSecret, isUnboundSecret } from '../../../src/webhooks/secrets.ts';

describe('createSecretBox', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-secrets-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  const key = () => randomBytes(32).toString('hex');

  it('opens what it sealed, and seals the same text differently each time', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    const secret = generateSigningSecret();
    const sealed = box.seal(secret, 'wh_1');
    expect(sealed).toMatch(/^v2\.[^.]+\.[^.]+\.[^.]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'wh_1')).toBe(secret);
    expect(box.seal(secret, 'wh_1')).not.toBe(sealed);
    expect(box.open(box.seal('', 'wh_1'), 'wh_1')).toBe('');
  });

  it('detects a tampered ciphertext or tag', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    const [version, iv, tag, data] = box.seal('whsec_abc', 'wh_1').split('.') as [string, string, string, string];
    const flip = (base64: string) => {
      const bytes = Buffer.from(base64, 'base64');
      bytes[0] = (bytes[0] as number) ^ 1;
      return bytes.toString('base64');
    };
    expect(() => box.open([version, iv, tag, flip(data)].join('.'), 'wh_1')).toThrow('cannot be decrypted');
    expect(() => box.open([version, iv, flip(tag), data].join('.'), 'wh_1')).toThrow('cannot be decrypted');
    expect(() => box.open([version, flip(iv), tag, data].join('.'), 'wh_1')).toThrow('cannot be decrypted');
  });

  it('binds a secret to its webhook: copied onto another webhook, it does not open', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    const sealed = box.seal('whsec_for_one', 'wh_one');
    expect(box.open(sealed, 'wh_one')).toBe('whsec_for_one');
    expect(() => box.open(sealed, 'wh_two')).toThrow(/webhook wh_two cannot be decrypted: it was stored for another webhook/);
  });

  it('still opens a secret sealed before the binding (v1, no associated data), for any id', () => {
    const hex = key();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(hex, 'hex'), iv);
    const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const legacy = `v1.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${data.toString('base64')}`;
    const box = createSecretBox({ encryptionKey: hex, dataDir });
    expect(isUnboundSecret(legacy)).toBe(true);
    expect(box.open(legacy, 'wh_any')).toBe('whsec_old');
    expect(isUnboundSecret(box.seal('whsec_old', 'wh_any'))).toBe(false);
  });

  it('refuses text that is not a sealed secret', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    expect(() => box.open('whsec_plain', 'wh_1')).toThrow('not a sealed secret');
    expect(() => box.open('v3.a.b.c', 'wh_1')).toThrow('not a sealed secret');
    expect(() => box.open('v1.a.b', 'wh_1')).toThrow('not a sealed secret');
  });

  it('with another key, says so clearly', () => {
    const sealed = createSecretBox({ encryptionKey: key(), dataDir }).seal('whsec_abc', 'wh_1');
    const other = createSecretBox({ encryptionKey: key(), dataDir });
    expect(() => other.open(sealed, 'wh_1')).toThrow(
      /another encryption key than the one that stored it.*BLOCKYARD_ENCRYPTION_KEY/,
    );
  });

  it('without a key, creates one in the data dir with mode 0600 and reuses it', () => {
    const dir = join(dataDir, 'nested', 'data');
    const first = createSecretBox({ dataDir: dir });
    const path = join(dir, 'encryption-key');
    const stored = readFileSync(path, 'utf8');
    expect(stored).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const sealed = first.seal('whsec_stored', 'wh_1');
    expect(createSecretBox({ dataDir: dir }).open(sealed, 'wh_1')).toBe('whsec_stored');
    expect(readFileSync(path, 'utf8')).toBe(stored);
    // The file's key is the key: a box given it explicitly opens the same secrets.
    expect(createSecretBox({ encryptionKey: stored.trim(), dataDir: dir }).open(sealed, 'wh_1')).toBe('whsec_stored');
  });

  it('a configured key wins over the data dir, which it leaves alone', () => {
    const sealed = createSecretBox({ dataDir }).seal('whsec_x', 'wh_1');
    expect(() => createSecretBox({ encryptionKey: key(), dataDir }).open(sealed, 'wh_1')).toThrow('cannot be decrypted');
  });
});

describe('generateSigningSecret', () => {
  it('is whsec_ and 32 random bytes in base64', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });
});
