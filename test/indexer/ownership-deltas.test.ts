import { describe, expect, it } from 'vitest';
import { zeroAddress } from '../../src/indexer/decode-block.ts';
import { ownershipDeltas } from '../../src/indexer/ownership-deltas.ts';

const [alice, bob, nft] = ['a', 'b', 'c'].map((digit) => `0x${digit.repeat(40)}`) as [string, string, string];
const move = (from: string, to: string, tokenId: bigint, amount: bigint, block?: number) => ({
  contract: nft,
  standard: 'ERC1155' as const,
  from,
  to,
  tokenId,
  amount,
  ...(block === undefined ? {} : { block }),
});

describe('ownershipDeltas', () => {
  it('nets each holding and keeps the newest block that brought the owner units', () => {
    const deltas = ownershipDeltas([
      move(zeroAddress, alice, 1n, 5n, 10),
      move(alice, bob, 1n, 2n, 11),
      move(zeroAddress, alice, 1n, 1n, 12),
      move(bob, alice, 2n, 1n, 12),
      move(alice, bob, 2n, 1n, 13), // alice got token 2 and gave it back: nets to zero, still acquired at 12
    ]);
    expect(deltas).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ owner: alice, tokenId: 1n, amount: 4n, acquiredBlock: 12 }),
        expect.objectContaining({ owner: bob, tokenId: 1n, amount: 2n, acquiredBlock: 11 }),
        expect.objectContaining({ owner: alice, tokenId: 2n, amount: 0n, acquiredBlock: 12 }),
        expect.objectContaining({ owner: bob, tokenId: 2n, amount: 0n, acquiredBlock: 13 }),
      ]),
    );
    expect(deltas).toHaveLength(4);
  });

  it('undoing gives no acquisition and drops net zeros', () => {
    const undone = ownershipDeltas([move(alice, bob, 1n, 2n, 11), move(bob, alice, 1n, 2n, 12)], -1);
    expect(undone).toEqual([]);
    expect(ownershipDeltas([move(alice, bob, 1n, 2n, 11)], -1)).toEqual([
      expect.objectContaining({ owner: alice, amount: 2n, acquiredBlock: null }),
      expect.objectContaining({ owner: bob, amount: -2n, acquiredBlock: null }),
    ]);
  });
});
