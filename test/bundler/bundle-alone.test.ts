import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { bundleAlone } from '../../src/bundler/bundle-alone.ts';
import { createBundleClaims } from '../../src/bundler/bundle-claims.ts';
import type { UserOperationRow } from '../../src/db/tables/bundler.ts';

const a = '0x00000000000000000000000000000000000000aa';
const b = '0x00000000000000000000000000000000000000bb';
const c = '0x00000000000000000000000000000000000000cc';
const row = (hash: string, sender: string, storage_owners: string[]) =>
  ({ hash, sender, storage_owners, status: 'pending' }) as unknown as UserOperationRow;
const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('pimlico_sendUserOperationNow bundling its op alone (ERC-7562 STO-041)', () => {
  it('waits for a bundle on its way that holds an op in storage conflict, and claims the storage it touched', async () => {
    const claims = createBundleClaims();
    // A bundle on its way holds a's op; the op sent now (sender b) touched a's storage in validation.
    const releaseInFlight = claims.claim([row('a0', a, [])]);
    const sentWith: string[][] = [];
    let finishBundle: (tx: Hex) => void = () => undefined;
    const bundled = bundleAlone({
      ops: [{ hash: 'b0', sender: b }],
      admit: async () => undefined,
      claim: claims.claim,
      conflictsWithClaimed: claims.conflictsWithClaimed,
      load: async () => [row('b0', b, [a])],
      executors: [{ busy: false }, { busy: false }],
      bundleWith: (_executor, rows) => {
        sentWith.push(rows.map((op) => op.hash));
        return new Promise<Hex>((resolve) => {
          finishBundle = resolve;
        });
      },
      isClosed: () => false,
      inFlight: () => undefined,
    });
    await tick();
    expect(sentWith).toEqual([]);

    releaseInFlight();
    await tick();
    expect(sentWith).toEqual([['b0']]);
    // While b0's bundle is on its way, an op of a (whose storage b0 read) is in conflict with it.
    expect(claims.conflictsWithClaimed(row('a1', a, []))).toBe(true);
    expect(claims.conflictsWithClaimed(row('c0', c, []))).toBe(false);

    finishBundle('0x01');
    expect(await bundled).toBe('0x01');
    expect(claims.conflictsWithClaimed(row('a1', a, []))).toBe(false);
    expect(claims.holdsOpOrSender({ hash: 'b1', sender: b })).toBe(false);
  });
});
