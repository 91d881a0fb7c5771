// The chain events, addresses and helpers the match-event tests share: one block's worth of events of every
// type, as the indexer writes them (docs/chain-events.md), and the fields every matched event carries.
import type { ChainEvent, ChainEventType } from '../../../src/events/chain-event.ts';
import type { NetworkFacts } from '../../../src/webhooks/match-event.ts';

export const facts: NetworkFacts = { chain: 'ethereum', network: 'devnet', nativeSymbol: 'ETH' };
export const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
export const alice = address(0xa11ce);
export const bob = address(0xb0b);
export const carol = address(0xca201);
export const token = address(0x70c);
export const nft = address(0x1f7);
export const zero = address(0);
export const txHash = hash(0x7e);
export const blockHash = hash(0xb10c);
export const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const pad = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;

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

export const block = chainEvent('block', {
  number: 100,
  hash: blockHash,
  parent_hash: hash(0xb10b),
  timestamp: '2026-05-01T09:59:59.000Z',
  gas_used: '21000',
  transaction_count: 1,
});
export const transaction = (data: Partial<Record<string, unknown>> = {}) =>
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
export const log = (data: Partial<Record<string, unknown>> = {}) =>
  chainEvent('log', {
    address: carol,
    topics: [hash(0xe1), pad(alice)],
    data: '0x1234',
    log_index: 2,
    transaction_hash: txHash,
    transaction_index: 0,
    ...data,
  });
export const tokenTransfer = (data: Partial<Record<string, unknown>> = {}) =>
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
export const nftTransfer = (data: Partial<Record<string, unknown>> = {}) =>
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
export const internalTransfer = (data: Partial<Record<string, unknown>> = {}) =>
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
export const common = { chain: 'ethereum', network: 'devnet', block_number: 100, block_hash: blockHash };

/** Which of the event types in `events` the matcher takes. */
export const typesMatched = (matcher: (event: ChainEvent) => unknown, events = allEvents()) =>
  events.filter((event) => matcher(event) !== undefined).map((event) => event.type);
