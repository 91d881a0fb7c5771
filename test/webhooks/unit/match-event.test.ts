import { describe, expect, it } from 'vitest';
import type { ChainEvent, ChainEventType } from '../../../src/events/chain-event.ts';
import {
  compileFilter,
  compileMatcher,
  matchPendingTransaction,
  type NetworkFacts,
  type PendingTransaction,
  topicsMatch,
} from '../../../src/webhooks/match-event.ts';
import type { WebhookConfig } from '../../../src/webhooks/webhook-config.ts';

const facts: NetworkFacts = { chain: 'ethereum', network: 'devnet', nativeSymbol: 'ETH' };
/** A pending transaction matched as the feed matches it: the webhook's filter compiled once. */
const matchPending = (config: WebhookConfig, tx: PendingTransaction) =>
  matchPendingTransaction(config, compileFilter(config, facts), tx);
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const alice = address(0xa11ce);
const bob = address(0xb0b);
const carol = address(0xca201);
const token = address(0x70c);
const nft = address(0x1f7);
const zero = address(0);
const txHash = hash(0x7e);
const blockHash = hash(0xb10c);
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const pad = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;

/** A chain event as the indexer writes it (docs/chain-events.md), at block 100. */
function chainEvent(type: ChainEventType, data: Record<string, unknown>): ChainEvent {
  return {
    seq: '1',
    network: 'ethereum/devnet',
    type,
    blockNumber: 100,
    blockHash,
    removed: false,
    removesSeq: null,
    data,
    createdAt: '2026-05-01T10:00:00.000Z',
  };
}

const block = chainEvent('block', {
  number: 100,
  hash: blockHash,
  parent_hash: hash(0xb10b),
  timestamp: '2026-05-01T09:59:59.000Z',
  gas_used: '21000',
  transaction_count: 1,
});
const transaction = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('transaction', {
    hash: txHash,
    index: 0,
    from: alice,
    to: bob,
    value: '1000',
    status: 'success',
    contract_created: null,
    selector: null,
    ...data,
  });
const log = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('log', {
    address: carol,
    topics: [hash(0xe1), pad(alice)],
    data: '0x1234',
    log_index: 2,
    transaction_hash: txHash,
    transaction_index: 0,
    ...data,
  });
const tokenTransfer = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('token_transfer', {
    contract: token,
    from: alice,
    to: bob,
    value: '500',
    log_index: 3,
    transaction_hash: txHash,
    topics: [transferTopic, pad(alice), pad(bob)],
    data: hash(500),
    transaction_index: 0,
    ...data,
  });
const nftTransfer = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('nft_transfer', {
    contract: nft,
    standard: 'ERC721',
    operator: null,
    from: alice,
    to: bob,
    token_id: '42',
    amount: '1',
    log_index: 4,
    batch_index: 0,
    transaction_hash: txHash,
    topics: [transferTopic, pad(alice), pad(bob), hash(42)],
    data: '0x',
    transaction_index: 0,
    ...data,
  });
const nativeTransfer = chainEvent('native_transfer', { from: alice, to: bob, value: '1000', transaction_hash: txHash });
const internalTransfer = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('internal_transfer', {
    from: carol,
    to: bob,
    value: '700',
    call_type: 'call',
    trace_path: '0.1',
    transaction_hash: txHash,
    ...data,
  });

const allEvents = () => [block, transaction(), log(), tokenTransfer(), nftTransfer(), nativeTransfer, internalTransfer()];
const common = { chain: 'ethereum', network: 'devnet', block_number: 100, block_hash: blockHash };

/** Which of the event types in `events` the matcher takes. */
const typesMatched = (matcher: (event: ChainEvent) => unknown, events = allEvents()) =>
  events.filter((event) => matcher(event) !== undefined).map((event) => event.type);

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

describe('compileMatcher: pending_transaction', () => {
  it('takes no chain event', () => {
    expect(typesMatched(compileMatcher('pending_transaction', { addresses: [alice] }, facts))).toEqual([]);
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

describe('matchPendingTransaction', () => {
  const pending = (tx: Partial<PendingTransaction> = {}): PendingTransaction => ({
    hash: txHash,
    from: alice,
    to: bob,
    value: 10n ** 18n,
    nonce: 5,
    input: `0xa9059cbb${'0'.repeat(128)}`,
    gas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    gasPrice: null,
    ...tx,
  });

  it('gives the transaction with amounts as decimal strings', () => {
    expect(matchPending({ from: [alice] }, pending())).toEqual({
      chain: 'ethereum',
      network: 'devnet',
      tx_hash: txHash,
      from: alice,
      to: bob,
      value: '1000000000000000000',
      nonce: 5,
      gas: '60000',
      max_fee_per_gas: '2000000000',
      max_priority_fee_per_gas: '1000000000',
      gas_price: null,
      selector: '0xa9059cbb',
      direction: 'outgoing',
    });
  });

  it('from, to and addresses', () => {
    const matches = (config: WebhookConfig, tx: Partial<PendingTransaction> = {}) =>
      matchPending(config, pending(tx)) !== undefined;
    expect(matches({ from: [bob] })).toBe(false);
    expect(matches({ to: [bob] })).toBe(true);
    expect(matches({ to: [alice] })).toBe(false);
    expect(matches({ to: [bob] }, { to: null })).toBe(false);
    expect(matches({ addresses: [bob] })).toBe(true);
    expect(matches({ addresses: [alice] }, { to: null })).toBe(true);
    expect(matches({ addresses: [carol] })).toBe(false);
    expect(matches({ from: [alice], to: [carol] })).toBe(false);
  });

  it('reads an empty list as no filter, as compileMatcher does', () => {
    expect(matchPending({ to: [bob], from: [] }, pending())).toBeDefined();
    expect(matchPending({ from: [alice], function_selectors: [] }, pending({ input: '0x' }))).toBeDefined();
    expect(matchPending({ to: [bob], from: [] }, pending())?.direction).toBe('incoming');
  });

  it('direction is outgoing when the sender is watched', () => {
    expect(matchPending({ addresses: [bob] }, pending())?.direction).toBe('incoming');
    expect(matchPending({ addresses: [alice] }, pending())?.direction).toBe('outgoing');
    expect(matchPending({ to: [bob] }, pending())?.direction).toBe('incoming');
  });

  it('min_value', () => {
    expect(matchPending({ to: [bob], min_value: (10n ** 18n).toString() }, pending())).toBeDefined();
    expect(matchPending({ to: [bob], min_value: (10n ** 18n + 1n).toString() }, pending())).toBeUndefined();
  });

  it('function_selectors need a call: not a plain transfer or a creation', () => {
    const config: WebhookConfig = { from: [alice], function_selectors: ['0xa9059cbb'] };
    expect(matchPending(config, pending())).toBeDefined();
    expect(matchPending(config, pending({ input: `0x095ea7b3${'0'.repeat(128)}` }))).toBeUndefined();
    expect(matchPending(config, pending({ input: '0x' }))).toBeUndefined();
    expect(matchPending(config, pending({ to: null }))).toBeUndefined();
    expect(matchPending({ from: [alice] }, pending({ to: null }))?.selector).toBeNull();
    expect(matchPending({ from: [alice] }, pending({ input: '0xa9059c' }))?.selector).toBeNull();
  });
});
