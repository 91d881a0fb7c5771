// compileMatcher for log webhooks, and topicsMatch, their eth_getLogs-style topic filter.
import { describe, expect, it } from 'vitest';
import { compileMatcher, topicsMatch } from '../../../src/webhooks/match-event.ts';
import type { WebhookConfig } from '../../../src/webhooks/webhook-config.ts';
import {
  alice,
  bob,
  carol,
  common,
  facts,
  hash,
  log,
  nft,
  nftTransfer,
  pad,
  token,
  tokenTransfer,
  transferTopic,
  txHash,
  typesMatched,
} from './match-event-fixtures.ts';

describe('compileMatcher: log', () => {
  it('takes logs and the logs of token and NFT transfers', () => {
    const match = compileMatcher('log', {}, facts);
    expect(typesMatched(match)).toEqual(['log', 'token_transfer', 'nft_transfer']);
    expect(match(log())).toEqual({
      data: {
        ...common,
        tx_hash: txHash,
        tx_index: 0,
        log_index: 2,
        address: carol,
        topics: [hash(0xe1), pad(alice)],
        data: '0x1234',
      },
    });
    expect(match(tokenTransfer())?.data).toMatchObject({
      address: token,
      topics: [transferTopic, pad(alice), pad(bob)],
      data: hash(500),
    });
  });

  it("delivers an ERC-1155 batch's log once: only for batch_index 0", () => {
    const match = compileMatcher('log', { addresses: [nft] }, facts);
    expect(match(nftTransfer({ standard: 'ERC1155', batch_index: 0 }))?.data.address).toBe(nft);
    expect(match(nftTransfer({ standard: 'ERC1155', batch_index: 1 }))).toBeUndefined();
    expect(match(nftTransfer({ standard: 'ERC1155', batch_index: 2 }))).toBeUndefined();
  });

  it('addresses filter by the emitting contract', () => {
    const match = compileMatcher('log', { addresses: [token] }, facts);
    expect(typesMatched(match)).toEqual(['token_transfer']);
    expect(typesMatched(compileMatcher('log', { addresses: [carol] }, facts))).toEqual(['log']);
  });

  it('topics filter with eth_getLogs semantics', () => {
    const matched = (topics: WebhookConfig['topics']) => typesMatched(compileMatcher('log', { topics }, facts));
    expect(matched([transferTopic])).toEqual(['token_transfer', 'nft_transfer']);
    expect(matched([transferTopic, null, null, hash(42)])).toEqual(['nft_transfer']);
    expect(matched([[hash(0xe1), transferTopic], pad(alice)])).toEqual(['log', 'token_transfer', 'nft_transfer']);
    expect(matched([null, pad(bob)])).toEqual([]);
    expect(matched([null, null, pad(bob)])).toEqual(['token_transfer', 'nft_transfer']);
  });
});

describe('topicsMatch', () => {
  const topics = [transferTopic, pad(alice), pad(bob)];

  it('null matches anything present or absent', () => {
    expect(topicsMatch([], topics)).toBe(true);
    expect(topicsMatch([null, null, null, null], topics)).toBe(true);
    expect(topicsMatch([null], [])).toBe(true);
  });

  it('an empty list of alternatives matches anything, as eth_getLogs reads it', () => {
    expect(topicsMatch([[]], topics)).toBe(true);
    expect(topicsMatch([null, null, null, []], topics)).toBe(true);
  });

  it('a topic matches its position only', () => {
    expect(topicsMatch([transferTopic], topics)).toBe(true);
    expect(topicsMatch([null, pad(alice)], topics)).toBe(true);
    expect(topicsMatch([pad(alice)], topics)).toBe(false);
  });

  it('a list matches any of its entries', () => {
    expect(topicsMatch([[hash(1), transferTopic]], topics)).toBe(true);
    expect(topicsMatch([[hash(1), hash(2)]], topics)).toBe(false);
  });

  it('a topic wanted beyond the last one does not match', () => {
    expect(topicsMatch([null, null, null, hash(42)], topics)).toBe(false);
    expect(topicsMatch([null, null, null, [hash(42)]], topics)).toBe(false);
  });
});
