import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/** A new bearer token (session cookie, link): 32 random bytes, base58. */
export function newSecretToken(): string {
  return base58.encode(randomBytes(32));
}

/** Hex SHA-256 of a token: what the database keeps instead of the token. */
export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
