import type { ColumnType, Selectable } from 'kysely';
import type { BigNumeric, Json, Timestamp } from './column-types.ts';

// Gas sponsorship: the policies and the sponsorships signed under them.

export interface GasPoliciesTable {
  id: string;
  account_id: string;
  name: string;
  chain: string;
  /** The network's name within the chain ('devnet'), not the 'chain/network' key. */
  network: string;
  /** The parsed rules: `PolicyRules` of src/sponsorship/policy-rules.ts, typed by its store. */
  rules: Json<object>;
  status: 'active' | 'paused';
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set by DELETE: the row stays for the sponsorships signed under it. */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type GasSponsorshipStatus = 'reserved' | 'settled' | 'released';

export interface GasSponsorshipsTable {
  id: string;
  policy_id: string;
  account_id: string;
  network: string;
  entry_point: string;
  sender: string;
  user_op_hash: string;
  max_cost_wei: BigNumeric;
  /** USD as an exact decimal string. */
  reserved_usd: ColumnType<string, string, string>;
  actual_cost_wei: ColumnType<string | null, string | null | undefined, string | null>;
  actual_usd: ColumnType<string | null, string | null | undefined, string | null>;
  status: GasSponsorshipStatus;
  valid_until: ColumnType<Date, Date, Date>;
  created_at: Timestamp;
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type GasSponsorshipRow = Selectable<GasSponsorshipsTable>;
