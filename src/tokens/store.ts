import { anyOf } from '../db/any-of.ts';
import type { Database } from '../db/connect.ts';

export interface StoredTokenMetadata {
  readonly contract: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** SQL of the token APIs. `network` is the '{chain}/{network}' id. */
export function createTokenStore(db: Database) {
  return {
    /** The newest block the indexer recorded for the network, or undefined when it has none yet. */
    async indexedHead(network: string): Promise<bigint | undefined> {
      const row = await db
        .selectFrom('index_blocks')
        .select((eb) => eb.fn.max('number').as('head'))
        .where('network', '=', network)
        .executeTakeFirst();
      return row?.head === null || row?.head === undefined ? undefined : BigInt(row.head);
    },

    /**
     * The newest indexed block and the contracts the index has seen the holder send or receive
     * (ordered by address), in one statement: one round trip, and both from the same snapshot.
     */
    async headAndHoldings(network: string, holder: string): Promise<{ head: bigint | undefined; contracts: string[] }> {
      const rows = await db
        .selectFrom((eb) =>
          eb
            .selectFrom('index_blocks')
            .select((inner) => inner.fn.max('number').as('head'))
            .where('network', '=', network)
            .as('h'),
        )
        .leftJoin('token_holdings as t', (join) => join.on('t.network', '=', network).on('t.holder', '=', holder))
        .select(['h.head', 't.contract'])
        .execute();
      const head = rows[0]?.head;
      // Sorted here, by code point: the same order on every database and collation, and no sort node.
      const contracts = rows.flatMap((row) => (row.contract === null ? [] : [row.contract])).sort();
      return { head: head === null || head === undefined ? undefined : BigInt(head), contracts };
    },

    async findMetadata(network: string, contracts: readonly string[]): Promise<StoredTokenMetadata[]> {
      if (contracts.length === 0) return [];
      return db
        .selectFrom('token_metadata')
        .select(['contract', 'name', 'symbol', 'decimals'])
        .where('network', '=', network)
        .where(anyOf('contract', contracts))
        .execute();
    },

    async saveMetadata(network: string, rows: readonly StoredTokenMetadata[]): Promise<void> {
      if (rows.length === 0) return;
      await db
        .insertInto('token_metadata')
        .values(rows.map((row) => ({ network, ...row, fetched_at: new Date() })))
        .onConflict((conflict) =>
          conflict.columns(['network', 'contract']).doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            symbol: eb.ref('excluded.symbol'),
            decimals: eb.ref('excluded.decimals'),
            fetched_at: eb.ref('excluded.fetched_at'),
          })),
        )
        .execute();
    },
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
