import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { base58 } from '@scure/base';

/**
 * The admin token: the setting when given, else the one generated on first start into
 * `<dataDir>/admin-token` (mode 0600) and reused after.
 */
export function resolveAdminToken(config: { adminToken?: string; dataDir: string }): string {
  if (config.adminToken) return config.adminToken;
  const path = adminTokenPath(config.dataDir);
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (stored) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = `bya_${base58.encode(randomBytes(32))}`;
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

/** Compares in constant time (digests of equal length, whatever the input lengths). */
export function adminTokenMatches(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
