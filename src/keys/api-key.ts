import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

export type KeyEnvironment = 'test' | 'live';

const keyPattern = /^svc_(test|live)_[1-9A-HJ-NP-Za-km-z]{40,50}$/;

export interface GeneratedKey {
  /** The whole key: shown once, never stored. */
  readonly key: string;
  /** Enough of the key for a person to recognise it in a list; useless to an attacker. */
  readonly prefix: string;
  readonly hash: string;
}

/** `svc_test_` or `svc_live_` followed by 32 random bytes in base58. */
export function generateApiKey(environment: KeyEnvironment): GeneratedKey {
  const key = `svc_${environment}_${base58.encode(randomBytes(32))}`;
  return { key, prefix: key.slice(0, 13), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Syntax only: lets a malformed key be refused without a database lookup. */
export function isWellFormedApiKey(key: string): boolean {
  return keyPattern.test(key);
}
