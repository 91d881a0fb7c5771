import { describe, expect, it } from 'vitest';
import { createBundleClaims } from '../../src/bundler/bundle-claims.ts';
import { storageConflict, withoutStorageConflicts } from '../../src/bundler/bundle-storage-conflicts.ts';

const a = '0x00000000000000000000000000000000000000aa';
const b = '0x00000000000000000000000000000000000000bb';
const c = '0x00000000000000000000000000000000000000cc';
const op = (hash: string, sender: string, storage_owners: string[] | null = []) => ({ hash, sender, storage_owners });

describe('ERC-7562 STO-041 between the ops of a bundle', () => {
  it('sees a conflict either way round, by address in any case, and none for untraced ops or the same sender', () => {
    expect(storageConflict(op('1', a), op('2', b, [a]))).toBe(true);
    expect(storageConflict(op('2', b, [a]), op('1', a.toUpperCase().replace('0X', '0x')))).toBe(true);
    expect(storageConflict(op('1', a, null), op('2', b, null))).toBe(false);
    expect(storageConflict(op('1', a, [a]), op('2', a, [a]))).toBe(false);
    expect(storageConflict(op('1', a, [c]), op('2', b, [c]))).toBe(false);
  });

  it('keeps the first of two conflicting ops, and holds back the later one with its sender’s later nonces', () => {
    const batch = [op('a0', a), op('b0', b, [a]), op('b1', b), op('c0', c, [b])];
    // b0 touched a's storage: it waits, and b1 after it; c0 touched b's, but no op of b is in the bundle now.
    expect(withoutStorageConflicts(batch).map((row) => row.hash)).toEqual(['a0', 'c0']);
  });

  it('holds back an op in conflict with a bundle on its way, until that bundle is released', () => {
    const claims = createBundleClaims();
    const release = claims.claim([op('a0', a, [c])]);
    expect(claims.conflictsWithClaimed(op('b0', b, [a]))).toBe(true);
    expect(claims.conflictsWithClaimed(op('c0', c))).toBe(true);
    expect(claims.conflictsWithClaimed(op('b1', b))).toBe(false);
    expect(withoutStorageConflicts([op('b0', b, [a]), op('d0', b)], claims.conflictsWithClaimed)).toEqual([]);
    release();
    expect(claims.conflictsWithClaimed(op('b0', b, [a]))).toBe(false);
    expect(claims.conflictsWithClaimed(op('c0', c))).toBe(false);
  });
});
