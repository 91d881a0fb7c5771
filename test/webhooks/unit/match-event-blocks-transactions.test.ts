// compileMatcher for new_block and mined_transaction webhooks.
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../../src/webhooks/match-event.ts';
import { alice, block, blockHash, bob, common, facts, hash, transaction, txHash, typesMatched } from './match-event-fixtures.ts';

describe('compileMatcher: new_block', () => {
  it('takes blocks only, with their fields', () => {
    const match = compileMatcher('new_block', {}, facts);
    expect(typesMatched(match)).toEqual(['block']);
    expect(match(block)).toEqual({
      data: {
        ...common,
        hash: blockHash,
        parent_hash: hash(0xb10b),
        timestamp: '2026-05-01T09:59:59.000Z',
        gas_used: '21000',
        transaction_count: 1,
      },
    });
  });
});

describe('compileMatcher: mined_transaction', () => {
  it('takes the transactions whose hash is watched', () => {
    const match = compileMatcher('mined_transaction', { tx_hashes: [hash(1), txHash] }, facts);
    expect(typesMatched(match)).toEqual(['transaction']);
    expect(match(transaction({ hash: hash(2) }))).toBeUndefined();
    expect(match(transaction({ selector: '0xa9059cbb', status: 'reverted' }))).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        tx_index: 0,
        from: alice,
        to: bob,
        value: '1000',
        status: 'reverted',
        contract_created: null,
        selector: '0xa9059cbb',
      },
    });
  });

  it('takes nothing without hashes', () => {
    expect(typesMatched(compileMatcher('mined_transaction', {}, facts))).toEqual([]);
  });
});
