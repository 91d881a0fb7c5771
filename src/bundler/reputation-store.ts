import { type Kysely, sql } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { decayed, type ReputationStatus, reputationStatus } from './reputation.ts';

export interface EntityReputation {
  address: string;
  opsSeen: number;
  opsIncluded: number;
  status: ReputationStatus;
}

/** Reputation counters in the database, so every process of the deployment sees the same. */
export function createReputationStore(db: Kysely<Tables>) {
  return {
    async get(network: string, address: string): Promise<EntityReputation> {
      const row = await db
        .selectFrom('bundler_reputation')
        .selectAll()
        .where('network', '=', network)
        .where('address', '=', address)
        .executeTakeFirst();
      if (!row) return { address, opsSeen: 0, opsIncluded: 0, status: 'ok' };
      const hours = (Date.now() - new Date(row.updated_at).getTime()) / 3_600_000;
      const opsSeen = decayed(Number(row.ops_seen), hours);
      const opsIncluded = decayed(Number(row.ops_included), hours);
      return { address, opsSeen, opsIncluded, status: reputationStatus(opsSeen, opsIncluded) };
    },

    async count(network: string, addresses: readonly string[], field: 'ops_seen' | 'ops_included'): Promise<void> {
      for (const address of addresses) {
        await db
          .insertInto('bundler_reputation')
          .values({ network, address, ops_seen: field === 'ops_seen' ? 1 : 0, ops_included: field === 'ops_included' ? 1 : 0 })
          .onConflict((oc) =>
            oc
              .columns(['network', 'address'])
              .doUpdateSet({ [field]: sql`bundler_reputation.${sql.ref(field)} + 1`, updated_at: new Date() }),
          )
          .execute();
      }
    },

    /** Takes back one "seen" of each entity (never under 0): an op it is not to be charged with (EREP-015/030). */
    async unsee(network: string, addresses: readonly string[]): Promise<void> {
      if (addresses.length === 0) return;
      await sql`update bundler_reputation set ops_seen = greatest(ops_seen - 1, 0), updated_at = now()
        where network = ${network} and address = any(${addresses.map((address) => address.toLowerCase())}::text[])`.execute(db);
    },

    /** Bans the entity that broke a bundle (ERC-7562, the reference bundler's crashedHandleOps): seen 10,000, included 0. */
    async crashed(network: string, address: string): Promise<void> {
      await this.set(network, [{ address, opsSeen: 10_000, opsIncluded: 0 }]);
    },

    /** One more included op per listed occurrence, for each entity that already has counters (a staked sender counted when seen). */
    async countIncludedIfKnown(network: string, addresses: readonly string[]): Promise<void> {
      if (addresses.length === 0) return;
      await sql`update bundler_reputation set ops_included = ops_included + included.ops, updated_at = now()
        from (select address, count(*)::int as ops from unnest(${addresses.map((address) => address.toLowerCase())}::text[]) as address
          group by address) as included
        where network = ${network} and bundler_reputation.address = included.address`.execute(db);
    },

    async list(network: string): Promise<EntityReputation[]> {
      const rows = await db
        .selectFrom('bundler_reputation')
        .select('address')
        .where('network', '=', network)
        .orderBy('address')
        .execute();
      return Promise.all(rows.map((row) => this.get(network, row.address)));
    },

    async set(network: string, entries: readonly { address: string; opsSeen: number; opsIncluded: number }[]): Promise<void> {
      for (const entry of entries) {
        await db
          .insertInto('bundler_reputation')
          .values({ network, address: entry.address.toLowerCase(), ops_seen: entry.opsSeen, ops_included: entry.opsIncluded })
          .onConflict((oc) =>
            oc
              .columns(['network', 'address'])
              .doUpdateSet({ ops_seen: entry.opsSeen, ops_included: entry.opsIncluded, updated_at: new Date() }),
          )
          .execute();
      }
    },

    async clear(network: string): Promise<void> {
      await db.deleteFrom('bundler_reputation').where('network', '=', network).execute();
    },
  };
}

export type ReputationStore = ReturnType<typeof createReputationStore>;
