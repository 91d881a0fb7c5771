import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { UsageRow, UsageWriter } from './recorder.ts';
import type { StatusClass } from './status-class.ts';

export const granularities = ['minute', 'hour', 'day'] as const;
export type Granularity = (typeof granularities)[number];

export const groupings = ['key', 'method', 'network', 'status'] as const;
export type Grouping = (typeof groupings)[number];

const groupColumn = { key: 'key_id', method: 'method', network: 'network', status: 'status_class' } as const;

/** One bucket of one group, as summed in the database. */
export interface UsageBucket {
  group: string;
  /** Bucket start, ms since the epoch. */
  t: number;
  requests: number;
  computeUnits: number;
  rateLimited: number;
}

export interface UsageStore {
  write: UsageWriter;
  /** Sums of one account's rows with `from <= minute < to`, by group and UTC bucket. */
  buckets(accountId: string, from: Date, to: Date, granularity: Granularity, groupBy: Grouping): Promise<UsageBucket[]>;
  /** The latest minute with requests of each key of the account that has any (the dashboard's `last_used_at`). */
  lastUsed(accountId: string): Promise<Map<string, Date>>;
}

/** Primary-key order: concurrent writers lock the rows they share in one order, so they cannot deadlock. */
function byPrimaryKey(a: UsageRow, b: UsageRow): number {
  return (
    compare(a.accountId, b.accountId) ||
    a.minute - b.minute ||
    compare(a.keyId, b.keyId) ||
    compare(a.network, b.network) ||
    compare(a.method, b.method) ||
    compare(a.statusClass, b.statusClass)
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function createUsageStore(db: Database): UsageStore {
  return {
    async write(rows) {
      if (rows.length === 0) return;
      const sorted = [...rows].sort(byPrimaryKey);
      const column = <T>(pick: (row: UsageRow) => T) => sorted.map(pick);
      // One statement whatever the row count: arrays, not a parameter per value (Postgres allows 65,535).
      await sql`
        insert into usage_minutes (minute, account_id, key_id, network, method, status_class, requests, compute_units)
        select * from unnest(
          ${column((row) => new Date(row.minute).toISOString())}::timestamptz[],
          ${column((row) => row.accountId)}::text[],
          ${column((row) => row.keyId)}::text[],
          ${column((row) => row.network)}::text[],
          ${column((row) => row.method)}::text[],
          ${column((row) => row.statusClass)}::text[],
          ${column((row) => row.requests)}::bigint[],
          ${column((row) => row.computeUnits)}::bigint[]
        )
        on conflict (account_id, minute, key_id, network, method, status_class) do update set
          requests = usage_minutes.requests + excluded.requests,
          compute_units = usage_minutes.compute_units + excluded.compute_units`.execute(db);
    },

    async buckets(accountId, from, to, granularity, groupBy) {
      const group = sql.ref(groupColumn[groupBy]);
      const bucket = sql`date_trunc(${granularity}, minute, 'UTC')`;
      const { rows } = await sql<{ group: string; t: Date; requests: string; compute_units: string; rate_limited: string }>`
        select ${group} as "group", ${bucket} as t,
          sum(requests) as requests,
          sum(compute_units) as compute_units,
          coalesce(sum(requests) filter (where status_class = ${'429' satisfies StatusClass}), 0) as rate_limited
        from usage_minutes
        where account_id = ${accountId} and minute >= ${from} and minute < ${to}
        group by 1, 2
        order by 1, 2`.execute(db);
      return rows.map((row) => ({
        group: row.group,
        t: new Date(row.t).getTime(),
        requests: Number(row.requests),
        computeUnits: Number(row.compute_units),
        rateLimited: Number(row.rate_limited),
      }));
    },

    async lastUsed(accountId) {
      // A loose index scan: the account's next key id, then that key's latest minute, each one descent
      // of usage_minutes_by_key, however many minutes the account has written.
      const { rows } = await sql<{ key_id: string; last: Date }>`
        with recursive used(key_id) as (
          (select key_id from usage_minutes where account_id = ${accountId} order by key_id limit 1)
          union all
          select (select u.key_id from usage_minutes u where u.account_id = ${accountId} and u.key_id > used.key_id order by u.key_id limit 1)
          from used where used.key_id is not null
        )
        select key_id, (select max(minute) from usage_minutes u where u.account_id = ${accountId} and u.key_id = used.key_id) as last
        from used where key_id is not null`.execute(db);
      return new Map(rows.map((row) => [row.key_id, new Date(row.last)]));
    },
  };
}
