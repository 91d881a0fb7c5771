import { describe, expect, it } from 'vitest';
import { createByteLru } from '../../src/rpc/cache/byte-lru.ts';

/** Room for exactly four one-character entries of size 1 (each counts 1 + 1 + 96 bytes). */
const fourEntries = 4 * 98;

function filled(keys: string[]) {
  const lru = createByteLru<string>(fourEntries);
  for (const key of keys) lru.set(key, key, 1);
  return lru;
}

describe('byte-bounded LRU', () => {
  it('evicts the least recently used entry: a read of the oldest saves it', () => {
    const lru = filled(['a', 'b', 'c', 'd']);
    expect(lru.get('a')).toBe('a');
    lru.set('e', 'e', 1);
    expect(lru.get('b')).toBeUndefined();
    expect(['a', 'c', 'd', 'e'].map((key) => lru.get(key))).toEqual(['a', 'c', 'd', 'e']);
    expect(lru.entries).toBe(4);
    expect(lru.bytes).toBe(fourEntries);
  });

  it('reads of recent entries keep the oldest first in line', () => {
    const lru = filled(['a', 'b', 'c', 'd']);
    for (let i = 0; i < 10; i++) lru.get('d');
    lru.set('e', 'e', 1);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('d')).toBe('d');
  });

  it('an entry read again and again survives any number of newer ones', () => {
    const lru = filled(['hot']);
    for (let i = 0; i < 100; i++) {
      lru.set(`k${i}`, 'v', 1);
      expect(lru.get('hot'), `after ${i + 1} newer entries`).toBe('hot');
    }
  });

  it('refuses an entry larger than the whole bound, and deletes', () => {
    const lru = filled(['a']);
    lru.set('big', 'x', fourEntries);
    expect(lru.get('big')).toBeUndefined();
    lru.delete('a');
    expect(lru.entries).toBe(0);
    expect(lru.bytes).toBe(0);
  });
});
