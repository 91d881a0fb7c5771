// compileMatcher for address_activity webhooks: which events touch a watched address, and how they read.
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../../src/webhooks/match-event.ts';
import {
  address,
  alice,
  bob,
  carol,
  common,
  facts,
  internalTransfer,
  token,
  tokenTransfer,
  transaction,
  txHash,
  typesMatched,
} from './match-event-fixtures.ts';

describe('compileMatcher: address_activity', () => {
  it('takes transactions, token and internal transfers touching the address, not logs, NFTs or native transfers', () => {
    const match = compileMatcher('address_activity', { addresses: [bob] }, facts);
    expect(typesMatched(match)).toEqual(['transaction', 'token_transfer', 'internal_transfer']);
    expect(typesMatched(compileMatcher('address_activity', { addresses: [address(0xdead)] }, facts))).toEqual([]);
  });

  it('an outgoing external transaction', () => {
    const match = compileMatcher('address_activity', { addresses: [alice] }, facts);
    expect(match(transaction())).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        from: alice,
        to: bob,
        value: '1000',
        asset: 'ETH',
        contract: null,
        direction: 'outgoing',
        category: 'external',
        status: 'success',
      },
    });
  });

  it('an incoming one, and a transaction between two watched addresses is outgoing', () => {
    expect(compileMatcher('address_activity', { addresses: [bob] }, facts)(transaction())?.data.direction).toBe('incoming');
    expect(compileMatcher('address_activity', { addresses: [alice, bob] }, facts)(transaction())?.data.direction).toBe(
      'outgoing',
    );
  });

  it('a contract creation reaches the created contract', () => {
    const creation = transaction({ to: null, contract_created: carol });
    const match = compileMatcher('address_activity', { addresses: [carol] }, facts)(creation);
    expect(match?.data).toMatchObject({ to: carol, direction: 'incoming', category: 'external' });
  });

  it('a token transfer names its contract and asks for its token facts', () => {
    const match = compileMatcher('address_activity', { addresses: [bob] }, facts)(tokenTransfer());
    expect(match).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        from: alice,
        to: bob,
        value: '500',
        asset: null,
        contract: token,
        direction: 'incoming',
        category: 'token',
        log_index: 3,
      },
      token,
    });
  });

  it('an internal transfer is native value with its trace path', () => {
    const match = compileMatcher('address_activity', { addresses: [carol] }, facts)(internalTransfer());
    expect(match).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        from: carol,
        to: bob,
        value: '700',
        asset: 'ETH',
        contract: null,
        direction: 'outgoing',
        category: 'internal',
        trace_path: '0.1',
      },
    });
    expect(match).not.toHaveProperty('token');
  });

  it('min_value keeps values at or above it', () => {
    const match = compileMatcher('address_activity', { addresses: [bob], min_value: '700' }, facts);
    expect(typesMatched(match)).toEqual(['transaction', 'internal_transfer']);
    expect(match(transaction({ value: '699' }))).toBeUndefined();
    expect(match(transaction({ value: '700' }))).toBeDefined();
  });

  it('min_value compares as uint256, not as text or float', () => {
    const big = ((1n << 200n) + 1n).toString();
    const match = compileMatcher('address_activity', { addresses: [bob], min_value: big }, facts);
    expect(match(transaction({ value: (1n << 200n).toString() }))).toBeUndefined();
    expect(match(transaction({ value: big }))).toBeDefined();
    expect(match(transaction({ value: '9' }))).toBeUndefined();
  });

  it('function_selectors keep transactions calling them and drop transfers', () => {
    const match = compileMatcher('address_activity', { addresses: [bob], function_selectors: ['0xa9059cbb'] }, facts);
    expect(match(transaction({ selector: '0xa9059cbb' }))).toBeDefined();
    expect(match(transaction({ selector: '0x095ea7b3' }))).toBeUndefined();
    expect(match(transaction({ selector: null }))).toBeUndefined();
    expect(match(tokenTransfer())).toBeUndefined();
    expect(match(internalTransfer())).toBeUndefined();
  });
});
