import { Counter, Gauge, type Registry } from 'prom-client';
import type { BlockFacts } from './decode-block.ts';

export interface IndexerMetrics {
  readonly indexedBlock: Gauge<'network'>;
  readonly headBlock: Gauge<'network'>;
  readonly blocksIndexed: Counter<'network'>;
  readonly transfersIndexed: Counter<'network' | 'kind'>;
  readonly reorgs: Counter<'network'>;
  readonly blocksRolledBack: Counter<'network'>;
  readonly errors: Counter<'network'>;
  readonly unavailable: Counter<'network'>;
  readonly backfill: BackfillMetrics;
}

/** The running backfill job of each network (`blockyard index backfill`). */
export interface BackfillMetrics {
  readonly fromBlock: Gauge<'network'>;
  readonly toBlock: Gauge<'network'>;
  readonly nextBlock: Gauge<'network'>;
  readonly blocks: Counter<'network'>;
  readonly transfers: Counter<'network'>;
}

/** Created once per process and shared by every network's indexer (the label tells them apart). */
export function createIndexerMetrics(registry: Registry): IndexerMetrics {
  return {
    indexedBlock: new Gauge({
      name: 'blockyard_indexer_indexed_block',
      help: 'Newest indexed block',
      labelNames: ['network'],
      registers: [registry],
    }),
    headBlock: new Gauge({
      name: 'blockyard_indexer_head_block',
      help: 'Upstream head the indexer last saw',
      labelNames: ['network'],
      registers: [registry],
    }),
    blocksIndexed: new Counter({
      name: 'blockyard_indexer_blocks_total',
      help: 'Blocks indexed',
      labelNames: ['network'],
      registers: [registry],
    }),
    transfersIndexed: new Counter({
      name: 'blockyard_indexer_transfers_total',
      help: 'Transfers indexed, by kind (token, nft, native, internal)',
      labelNames: ['network', 'kind'],
      registers: [registry],
    }),
    reorgs: new Counter({
      name: 'blockyard_indexer_reorgs_total',
      help: 'Reorgs handled',
      labelNames: ['network'],
      registers: [registry],
    }),
    blocksRolledBack: new Counter({
      name: 'blockyard_indexer_blocks_rolled_back_total',
      help: 'Blocks undone by reorgs',
      labelNames: ['network'],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'blockyard_indexer_errors_total',
      help: 'Failed index rounds (retried with backoff)',
      labelNames: ['network'],
      registers: [registry],
    }),
    unavailable: new Counter({
      name: 'blockyard_indexer_blocks_unavailable_total',
      help: 'Index rounds that met a block no upstream had yet (asked again after a poll interval, never a reorg)',
      labelNames: ['network'],
      registers: [registry],
    }),
    backfill: createBackfillMetrics(registry),
  };
}

function createBackfillMetrics(registry: Registry): BackfillMetrics {
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['network'], registers: [registry] });
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ['network'], registers: [registry] });
  return {
    fromBlock: gauge('blockyard_indexer_backfill_from_block', 'First block of the backfill being worked on'),
    toBlock: gauge('blockyard_indexer_backfill_to_block', 'Last block of the backfill being worked on'),
    nextBlock: gauge('blockyard_indexer_backfill_next_block', 'First block the backfill has not filled yet'),
    blocks: counter('blockyard_indexer_backfill_blocks_total', 'Blocks filled by backfills'),
    transfers: counter(
      'blockyard_indexer_backfill_transfers_total',
      'Transfers (token, NFT, native, internal) filled by backfills',
    ),
  };
}

/** Token, NFT, native and internal transfers of the blocks. */
export function transfersIn(blocks: readonly BlockFacts[]): number {
  let total = 0;
  for (const block of blocks)
    total +=
      block.tokenTransfers.length + block.nftTransfers.length + block.nativeTransfers.length + block.internalTransfers.length;
  return total;
}

/** Adds the blocks' transfers to the transfers counter, by kind. */
export function countIndexedTransfers(metrics: IndexerMetrics, network: string, blocks: readonly BlockFacts[]): void {
  let token = 0;
  let nft = 0;
  let native = 0;
  let internal = 0;
  for (const block of blocks) {
    token += block.tokenTransfers.length;
    nft += block.nftTransfers.length;
    native += block.nativeTransfers.length;
    internal += block.internalTransfers.length;
  }
  if (token) metrics.transfersIndexed.inc({ network, kind: 'token' }, token);
  if (nft) metrics.transfersIndexed.inc({ network, kind: 'nft' }, nft);
  if (native) metrics.transfersIndexed.inc({ network, kind: 'native' }, native);
  if (internal) metrics.transfersIndexed.inc({ network, kind: 'internal' }, internal);
}
