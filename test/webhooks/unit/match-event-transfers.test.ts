// compileMatcher for token_transfer, nft_transfer and internal_transfer webhooks.
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../../src/webhooks/match-event.ts';
import type { WebhookConfig } from '../../../src/webhooks/webhook-config.ts';
import {
  alice,
  bob,
  carol,
  common,
  facts,
  internalTransfer,
  nft,
  nftTransfer,
  token,
  tokenTransfer,
  txHash,
  typesMatched,
  zero,
} from './match-event-fixtures.ts';

describe('compileMatcher: token_transfer', () => {
  it('takes every token transfer without a filter, with null token facts for the enricher', () => {
    const match = compileMatcher('token_transfer', {}, facts);
    expect(typesMatched(match)).toEqual(['token_transfer']);
    expect(match(tokenTransfer())).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        log_index: 3,
        contract: token,
        from: alice,
        to: bob,
        value: '500',
        symbol: null,
        decimals: null,
      },
      token,
    });
  });

  it('contracts filter by the token', () => {
    expect(compileMatcher('token_transfer', { contracts: [token] }, facts)(tokenTransfer())).toBeDefined();
    expect(compileMatcher('token_transfer', { contracts: [nft] }, facts)(tokenTransfer())).toBeUndefined();
  });

  it('from and to must each match; addresses matches either side', () => {
    const matches = (config: WebhookConfig) => compileMatcher('token_transfer', config, facts)(tokenTransfer()) !== undefined;
    expect(matches({ from: [alice] })).toBe(true);
    expect(matches({ from: [bob] })).toBe(false);
    expect(matches({ to: [bob] })).toBe(true);
    expect(matches({ to: [alice] })).toBe(false);
    expect(matches({ from: [alice], to: [bob] })).toBe(true);
    expect(matches({ from: [alice], to: [carol] })).toBe(false);
    expect(matches({ addresses: [alice] })).toBe(true);
    expect(matches({ addresses: [bob] })).toBe(true);
    expect(matches({ addresses: [carol] })).toBe(false);
    expect(matches({ addresses: [carol], from: [alice] })).toBe(false);
    expect(matches({ from: [], to: [] })).toBe(true);
  });

  it('min_value', () => {
    expect(compileMatcher('token_transfer', { min_value: '500' }, facts)(tokenTransfer())).toBeDefined();
    expect(compileMatcher('token_transfer', { min_value: '501' }, facts)(tokenTransfer())).toBeUndefined();
  });
});

describe('compileMatcher: nft_transfer', () => {
  it('takes NFT transfers with their quantity and the NFT to describe', () => {
    const match = compileMatcher('nft_transfer', {}, facts);
    expect(typesMatched(match)).toEqual(['nft_transfer']);
    const batch = nftTransfer({ standard: 'ERC1155', operator: carol, amount: '3', batch_index: 1, token_id: '7' });
    expect(match(batch)).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        log_index: 4,
        batch_index: 1,
        contract: nft,
        from: alice,
        to: bob,
        token_id: '7',
        standard: 'ERC1155',
        quantity: 3,
        operator: carol,
      },
      nft: { contract: nft, tokenId: '7' },
    });
  });

  it('filters by contracts, token_ids, from, to and addresses', () => {
    const matches = (config: WebhookConfig, data: Partial<Record<string, unknown>> = {}) =>
      compileMatcher('nft_transfer', config, facts)(nftTransfer(data)) !== undefined;
    expect(matches({ contracts: [nft] })).toBe(true);
    expect(matches({ contracts: [token] })).toBe(false);
    expect(matches({ token_ids: ['1', '42'] })).toBe(true);
    expect(matches({ token_ids: ['41'] })).toBe(false);
    expect(matches({ from: [zero] }, { from: zero })).toBe(true);
    expect(matches({ from: [zero] })).toBe(false);
    expect(matches({ to: [bob] })).toBe(true);
    expect(matches({ addresses: [alice] })).toBe(true);
    expect(matches({ addresses: [carol] })).toBe(false);
  });
});

describe('compileMatcher: internal_transfer', () => {
  it('takes internal transfers by party and value', () => {
    const match = compileMatcher('internal_transfer', { to: [bob], min_value: '700' }, facts);
    expect(typesMatched(match)).toEqual(['internal_transfer']);
    expect(match(internalTransfer())).toEqual({
      data: { ...common, tx_hash: txHash, from: carol, to: bob, value: '700', call_type: 'call', trace_path: '0.1' },
    });
    expect(match(internalTransfer({ value: '699' }))).toBeUndefined();
    expect(match(internalTransfer({ to: alice }))).toBeUndefined();
    expect(compileMatcher('internal_transfer', { addresses: [carol] }, facts)(internalTransfer())).toBeDefined();
  });
});
