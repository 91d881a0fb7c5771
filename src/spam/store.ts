import { sql } from 'kysely';
import { anyOf } from '../db/any-of.ts';
import type { Database } from '../db/connect.ts';
import type { SpamContractKind, SpamListName } from '../db/tables/spam.ts';
import type { SampledTransfer } from './heuristics.ts';
import { isSpamReason, type SpamReason } from './reasons.ts';

/** Transfers the transfer heuristics read per contract: its first ones, through the contract index. */
export const transferSample = 500;

export interface StoredClassification {
  readonly contract: string;
  readonly reasons: SpamReason[];
  readonly sampledTransfers: number;
  readonly classifiedAt: Date;
}

export interface SpamListEntry {
  readonly contract: string;
  readonly list: SpamListName;
  readonly note: string | null;
  readonly created_at: string;
}

/** SQL of the spam classification; every read is by primary key or the contract index. */
export function createSpamStore(db: Database) {
  return {
    async classifications(network: string, contracts: readonly string[]): Promise<StoredClassification[]> {
      if (contracts.length === 0) return [];
      const rows = await db
        .selectFrom('contract_spam')
        .select(['contract', 'reasons', 'sampled_transfers', 'classified_at'])
        .where('network', '=', network)
        .where(anyOf('contract', contracts))
        .execute();
      return rows.map((row) => ({
        contract: row.contract,
        reasons: row.reasons.filter(isSpamReason),
        sampledTransfers: row.sampled_transfers,
        classifiedAt: new Date(row.classified_at),
      }));
    },

    async saveClassification(
      network: string,
      kind: SpamContractKind,
      row: { contract: string; reasons: SpamReason[]; sampledTransfers: number },
    ): Promise<void> {
      const values = { reasons: row.reasons, sampled_transfers: row.sampledTransfers, classified_at: new Date() };
      await db
        .insertInto('contract_spam')
        .values({ network, contract: row.contract, kind, ...values })
        .onConflict((conflict) => conflict.columns(['network', 'contract']).doUpdateSet({ kind, ...values }))
        .execute();
    },

    /** Classified contracts of a kind on a network in address order (the primary key), at most `limit`. */
    async classifiedContracts(
      network: string,
      kind: SpamContractKind,
      limit: number,
    ): Promise<{ contract: string; reasons: SpamReason[] }[]> {
      const rows = await db
        .selectFrom('contract_spam')
        .select(['contract', 'reasons'])
        .where('network', '=', network)
        .where('kind', '=', kind)
        .orderBy('contract')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ contract: row.contract, reasons: row.reasons.filter(isSpamReason) }));
    },

    /** The contract's first indexed transfers with their transactions' senders. */
    async sampleTransfers(network: string, kind: SpamContractKind, contract: string): Promise<SampledTransfer[]> {
      const table = kind === 'token' ? sql.table('token_transfers') : sql.table('nft_transfers');
      const { rows } = await sql<{ tx_hash: string; from_address: string; to_address: string; sender: string | null }>`
        select t.tx_hash, t.from_address, t.to_address, x.from_address as sender
        from (
          select tx_hash, from_address, to_address from ${table}
          where network = ${network} and contract = ${contract}
          order by block_number, log_index
          limit ${transferSample}
        ) t
        left join index_transactions x on x.network = ${network} and x.hash = t.tx_hash`.execute(db);
      return rows.map((row) => ({ txHash: row.tx_hash, from: row.from_address, to: row.to_address, sender: row.sender }));
    },

    async listEntries(network: string, contracts?: readonly string[]): Promise<SpamListEntry[]> {
      if (contracts !== undefined && contracts.length === 0) return [];
      let query = db.selectFrom('spam_lists').select(['contract', 'list', 'note', 'created_at']).where('network', '=', network);
      if (contracts !== undefined) query = query.where(anyOf('contract', contracts));
      const rows = await query.orderBy('contract').execute();
      return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
    },

    async setListEntry(network: string, contract: string, list: SpamListName, note: string | null): Promise<SpamListEntry> {
      const row = await db
        .insertInto('spam_lists')
        .values({ network, contract, list, note, created_at: new Date() })
        .onConflict((conflict) => conflict.columns(['network', 'contract']).doUpdateSet({ list, note, created_at: new Date() }))
        .returning(['contract', 'list', 'note', 'created_at'])
        .executeTakeFirstOrThrow();
      return { ...row, created_at: new Date(row.created_at).toISOString() };
    },

    async removeListEntry(network: string, contract: string): Promise<boolean> {
      const result = await db
        .deleteFrom('spam_lists')
        .where('network', '=', network)
        .where('contract', '=', contract)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type SpamStore = ReturnType<typeof createSpamStore>;
