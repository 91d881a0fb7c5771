import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretBox, generateSigningSecret } from '../../../src/webhooks/secrets.ts';

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
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(box.seal(''))).toBe('');
  });

  it('detects a tampered ciphertext or tag', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    const [version, iv, tag, data] = box.seal('whsec_abc').split('.') as [string, string, string, string];
    const flip = (base64: string) => {
      const bytes = Buffer.from(base64, 'base64');
      bytes[0] = (bytes[0] as number) ^ 1;
      return bytes.toString('base64');
    };
    expect(() => box.open([version, iv, tag, flip(data)].join('.'))).toThrow('cannot be decrypted');
    expect(() => box.open([version, iv, flip(tag), data].join('.'))).toThrow('cannot be decrypted');
    expect(() => box.open([version, flip(iv), tag, data].join('.'))).toThrow('cannot be decrypted');
  });

  it('refuses text that is not a sealed secret', () => {
    const box = createSecretBox({ encryptionKey: key(), dataDir });
    expect(() => box.open('whsec_plain')).toThrow('not a sealed secret');
    expect(() => box.open('v2.a.b.c')).toThrow('not a sealed secret');
    expect(() => box.open('v1.a.b')).toThrow('not a sealed secret');
  });

  it('with another key, says so clearly', () => {
    const sealed = createSecretBox({ encryptionKey: key(), dataDir }).seal('whsec_abc');
    const other = createSecretBox({ encryptionKey: key(), dataDir });
    expect(() => other.open(sealed)).toThrow(/another encryption key than the one that stored it.*BLOCKYARD_ENCRYPTION_KEY/);
  });

  it('without a key, creates one in the data dir with mode 0600 and reuses it', () => {
    const dir = join(dataDir, 'nested', 'data');
    const first = createSecretBox({ dataDir: dir });
    const path = join(dir, 'encryption-key');
    const stored = readFileSync(path, 'utf8');
    expect(stored).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const sealed = first.seal('whsec_stored');
    expect(createSecretBox({ dataDir: dir }).open(sealed)).toBe('whsec_stored');
    expect(readFileSync(path, 'utf8')).toBe(stored);
    // The file's key is the key: a box given it explicitly opens the same secrets.
    expect(createSecretBox({ encryptionKey: stored.trim(), dataDir: dir }).open(sealed)).toBe('whsec_stored');
  });

  it('a configured key wins over the data dir, which it leaves alone', () => {
    const sealed = createSecretBox({ dataDir }).seal('whsec_x');
    expect(() => createSecretBox({ encryptionKey: key(), dataDir }).open(sealed)).toThrow('cannot be decrypted');
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
