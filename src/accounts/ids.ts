import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/** Public identifiers: a type prefix and 16 random bytes, e.g. `acc_3xK…`. */
export function newId(prefix: 'acc' | 'key' | 'usr' | 'inv'): string {
  return `${prefix}_${base58.encode(randomBytes(16))}`;
}
