import type { ColumnType } from 'kysely';
import type { BigNumeric, Timestamp } from './column-types.ts';

// What the indexer writes: blocks, transactions, transfers, holdings, metadata and the event stream.

export interface IndexBlocksTable {
  network: string;
  number: BigNumeric;
  hash: string;
  parent_hash: string;
  timestamp: Timestamp;
  gas_used: BigNumeric;
  tx_count: number;
}

export interface IndexTransactionsTable {
  network: string;
  hash: string;
  block_number: BigNumeric;
  tx_index: number;
  from_address: string;
  to_address: string | null;
  value: BigNumeric;
  /** 1 success, 0 reverted. */
  status: number;
  contract_created: string | null;
}

export interface TokenTransfersTable {
  network: string;
  block_number: BigNumeric;
  log_index: number;
  tx_hash: string;
  contract: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export type NftStandard = 'ERC721' | 'ERC1155';

export interface NftTransfersTable {
  network: string;
  block_number: BigNumeric;
  log_index: number;
  /** Position inside an ERC-1155 TransferBatch; 0 otherwise. */
  batch_index: number;
  tx_hash: string;
  contract: string;
  standard: NftStandard;
  operator: string | null;
  from_address: string;
  to_address: string;
  token_id: BigNumeric;
  amount: BigNumeric;
}

/** A mint to an address in a transaction another address sent (Alchemy's airdrop), one row per mint. */
export interface NftAirdropsTable {
  network: string;
  block_number: BigNumeric;
  log_index: number;
  batch_index: number;
  /** The address the token was minted to. */
  owner: string;
  contract: string;
  token_id: BigNumeric;
}

export interface NativeTransfersTable {
  network: string;
  block_number: BigNumeric;
  tx_hash: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export interface InternalTransfersTable {
  network: string;
  block_number: BigNumeric;
  tx_hash: string;
  /** Position in the call tree, e.g. '0.2.1'. */
  trace_path: string;
  call_type: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export interface TokenHoldingsTable {
  network: string;
  holder: string;
  contract: string;
  first_block: BigNumeric;
}

/** Every (holder, NFT collection) pair a transfer touched, held now or not (the transfers' spam filter). */
export interface NftHolderCollectionsTable {
  network: string;
  holder: string;
  contract: string;
  first_block: BigNumeric;
}

export interface NftOwnershipTable {
  network: string;
  contract: string;
  token_id: BigNumeric;
  owner: string;
  standard: NftStandard;
  amount: BigNumeric;
  /** The newest block of a transfer that brought the owner units of the token; null when none is indexed. */
  acquired_block: ColumnType<string | null, string | number | null | undefined, string | number | null>;
}

export interface TokenMetadataTable {
  network: string;
  contract: string;
  name: string;
  symbol: string;
  decimals: number;
  fetched_at: Timestamp;
}

export interface NftMetadataTable {
  network: string;
  contract: string;
  token_id: BigNumeric;
  token_uri: string | null;
  name: string | null;
  description: string | null;
  image_url: string | null;
  traits: ColumnType<{ trait_type: string; value: string }[], string, string>;
  metadata_error: string | null;
  fetched_at: Timestamp;
}

export interface ChainEventsTable {
  seq: ColumnType<string, never, never>;
  network: string;
  type: string;
  block_number: BigNumeric;
  block_hash: string;
  removed: ColumnType<boolean, boolean | undefined, boolean>;
  /** On a `removed` event: the seq of the event it takes back. */
  removes_seq: ColumnType<string | null, string | number | null | undefined, string | null>;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface IndexProgressTable {
  network: string;
  indexed_block: BigNumeric;
  head_block: BigNumeric;
  final_block: BigNumeric;
  blocks_per_second: number;
  transfers_per_second: number;
  updated_at: Timestamp;
}

export interface IndexOriginsTable {
  network: string;
  /** The lowest block the live index started from (a backfill fills below it). */
  first_block: BigNumeric;
  chosen_at: Timestamp;
}

export type BackfillStatus = 'pending' | 'running' | 'done';

export interface IndexBackfillsTable {
  id: ColumnType<string, never, never>;
  network: string;
  from_block: BigNumeric;
  to_block: BigNumeric;
  /** The first block not yet filled; to_block + 1 once done. */
  next_block: BigNumeric;
  status: ColumnType<BackfillStatus, BackfillStatus | undefined, BackfillStatus>;
  transfers: ColumnType<string, string | number | undefined, string | number>;
  blocks_per_second: ColumnType<number, number | undefined, number>;
  transfers_per_second: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
