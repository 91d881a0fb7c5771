import type { ChainEvent } from '../../../src/events/chain-event.ts';

/** An `nft_transfer` chain event as the indexer publishes it, with `data` (and any field) given. */
export function nftTransferEvent(data: Record<string, unknown>, overrides: Partial<ChainEvent> = {}): ChainEvent {
  return {
    seq: '1',
    network: 'ethereum/devnet',
    type: 'nft_transfer',
    blockNumber: 1,
    blockHash: '0x01',
    removed: false,
    removesSeq: null,
    data,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}
