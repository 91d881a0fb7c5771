import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.ts';
import {
  changeNftFilterPairs,
  nftFilterKeysOf,
  nftFilterPairAt,
  nftFilterPairCount,
  parseNftFilterPair,
} from '../../../src/webhooks/nft-filter-pairs.ts';

const a = `0x${'a'.repeat(40)}`;
const b = `0x${'b'.repeat(40)}`;
const pair = (contract: string, token_id?: string) =>
  token_id === undefined ? { contract_address: contract } : { contract_address: contract, token_id };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('NFT filters as (contract, token id) pairs over contracts x token_ids', () => {
  it('reads a list of pairs as contracts, or as every contract with every id, and nothing else', () => {
    expect(nftFilterKeysOf([pair(a), pair(b), pair(a)], 'f')).toEqual({ contracts: [a, b] });
    expect(nftFilterKeysOf([pair(a, '1'), pair(b, '1'), pair(a, '2'), pair(b, '2')], 'f')).toEqual({
      contracts: [a, b],
      token_ids: ['1', '2'],
    });
    expect(refusal(() => nftFilterKeysOf([pair(a, '1'), pair(b)], 'f'))).toContain("'f'");
    expect(refusal(() => nftFilterKeysOf([pair(a, '1'), pair(b, '2')], 'f'))).toContain("'f'");
  });

  it('lists a filter pair by pair in a stable order', () => {
    const keys = { contracts: [a, b], token_ids: ['7', '9'] };
    expect(nftFilterPairCount(keys)).toBe(4);
    expect([0, 1, 2, 3].map((index) => nftFilterPairAt(keys, index))).toEqual([
      pair(a, '7'),
      pair(a, '9'),
      pair(b, '7'),
      pair(b, '9'),
    ]);
    expect(nftFilterPairCount({ contracts: [a] })).toBe(1);
    expect(nftFilterPairCount({})).toBe(0);
  });

  it('changes a filter by removals then additions, refusing an empty or unrepresentable result', () => {
    expect(changeNftFilterPairs({ contracts: [a] }, [pair(b)], [])).toEqual({ contracts: [a, b] });
    expect(changeNftFilterPairs({ contracts: [a] }, [pair(a, '3')], [pair(a)])).toEqual({ contracts: [a], token_ids: ['3'] });
    // Removing what is not there and adding what is change nothing.
    expect(changeNftFilterPairs({ contracts: [a] }, [pair(a)], [pair(b)])).toEqual({ contracts: [a] });
    expect(refusal(() => changeNftFilterPairs({ contracts: [a] }, [], [pair(a)]))).toContain("'nft_filters_to_remove'");
    expect(refusal(() => changeNftFilterPairs({ contracts: [a] }, [pair(b, '1')], []))).toContain("'nft_filters_to_add'");
    // A filter without contracts watches every NFT: it is not narrowed pair by pair.
    expect(refusal(() => changeNftFilterPairs({}, [pair(a)], []))).toContain("'webhook_id'");
  });

  it('checks and normalises a pair, naming the field', () => {
    expect(parseNftFilterPair({ contract_address: a.toUpperCase().replace('0X', '0x'), token_id: '0x10' }, 'p')).toEqual(
      pair(a, '16'),
    );
    expect(refusal(() => parseNftFilterPair({ contract_address: 'nope' }, 'p[0]'))).toContain("'p[0].contract_address'");
    expect(refusal(() => parseNftFilterPair({ contract_address: a, token_id: '1.5' }, 'p[0]'))).toContain("'p[0].token_id'");
    expect(refusal(() => parseNftFilterPair({ contract_address: a, token_id: `0x1${'0'.repeat(64)}` }, 'p[0]'))).toContain(
      "'p[0].token_id'",
    );
  });
});
