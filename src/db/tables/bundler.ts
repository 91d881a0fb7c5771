import type { ColumnType, Selectable } from 'kysely';
import type { BigNumeric, Json, Nullable, Timestamp } from './column-types.ts';

// Smart wallets and the user operations the bundler takes for them.

export interface WalletsTable {
  key_id: string;
  account_id: string;
  network: string;
  address: string;
  chain: string;
  owner: string;
  salt: BigNumeric;
  entry_point_version: '0.6' | '0.7' | '0.8';
  entry_point: string;
  factory: string;
  created_at: Timestamp;
  deployed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  deploy_tx: Nullable<string>;
}

export type UserOperationStatus = 'pending' | 'submitted' | 'included' | 'failed' | 'replaced';

export interface UserOperationsTable {
  hash: string;
  network: string;
  entry_point: string;
  entry_point_version: '0.6' | '0.7' | '0.8';
  sender: string;
  nonce: BigNumeric;
  factory: Nullable<string>;
  paymaster: Nullable<string>;
  op: Json<Record<string, string>>;
  max_fee_per_gas: BigNumeric;
  max_priority_fee_per_gas: BigNumeric;
  status: UserOperationStatus;
  reason: Nullable<string>;
  tx_hash: Nullable<string>;
  block_number: ColumnType<string | null, string | number | bigint | null | undefined, string | number | bigint | null>;
  block_hash: Nullable<string>;
  /** Bundles carrying the op that reverted on chain (bundled alone once above 0, dropped at a limit). */
  bundle_reverts: ColumnType<number, number | undefined, number>;
  receipt: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** ERC-7562 COD-010: {address: code hash} of the code the first validation ran; null when not traced. */
  code_hashes: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  /** ERC-7562 STO-041: contracts (lower-case) whose storage the validation touched, sender and EntryPoint aside; null when not traced. */
  storage_owners: ColumnType<string[] | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BundlerReputationTable {
  network: string;
  address: string;
  ops_seen: BigNumeric;
  ops_included: BigNumeric;
  updated_at: Timestamp;
}

export type UserOperationRow = Selectable<UserOperationsTable>;
export type WalletRow = Selectable<WalletsTable>;
