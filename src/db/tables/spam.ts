import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types.ts';

// Spam classification of token and NFT contracts (docs/spam.md).

export type SpamContractKind = 'token' | 'nft';
export type SpamListName = 'allow' | 'deny';

export interface ContractSpamTable {
  network: string;
  contract: string;
  kind: SpamContractKind;
  /** Reason codes the heuristics found (src/spam/reasons.ts). */
  reasons: ColumnType<string[], string[], string[]>;
  /** How many indexed transfers the transfer heuristics read. */
  sampled_transfers: number;
  classified_at: Timestamp;
}

/** An account's report that a contract is (or is not) spam (Alchemy's reportSpam); no verdict reads it. */
export interface SpamReportsTable {
  network: string;
  contract: string;
  account_id: string;
  is_spam: boolean;
  reported_at: Timestamp;
}

export interface SpamListsTable {
  network: string;
  contract: string;
  list: SpamListName;
  note: string | null;
  created_at: Timestamp;
}
