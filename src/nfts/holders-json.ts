import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';
import { countCap } from './count-cap.ts';

/** A page of a collection's holders, already encoded as the JSON array of the answer. */
export interface HoldersJsonPage {
  /** `["0x…",…]`, or with balances `[{"ownerAddress":"0x…","tokenBalances":[{"tokenId":"1","balance":"2"}]},…]`. */
  readonly json: string;
  /** The page's last holder (the next page starts after it); undefined for an empty page. */
  readonly last: string | undefined;
  /** Whether another holder follows the page. */
  readonly more: boolean;
  /** Every holder of the collection, counted up to `countCap`, when asked for. */
  readonly owners?: number;
}

/**
 * Holders of any token of a contract, by address, after `after` (exclusive), encoded by Postgres as
 * the answer's JSON array. A collection's page holds up to thousands of holders: encoded here, it
 * reaches the service as one string instead of a row per token, so the one thread that answers every
 * other request is not held building and serialising them (benchmarks.md, 2026-12-05 night).
 */
export async function readHoldersJson(
  db: Database,
  network: string,
  contract: string,
  page: { after?: string; limit: number; withBalances: boolean; countOwners?: boolean },
): Promise<HoldersJsonPage> {
  const after = page.after === undefined ? sql`` : sql`and owner > ${page.after}`;
  const item = page.withBalances
    ? sql`'{"ownerAddress":' || to_json(p.owner)::text || ',"tokenBalances":[' || (
        select string_agg('{"tokenId":' || to_json(o.token_id::text)::text || ',"balance":' || to_json(o.amount::text)::text || '}', ',' order by o.token_id)
        from nft_ownership o
        where o.network = ${network} and o.contract = ${contract} and o.owner = p.owner and o.amount > 0
      ) || ']}'`
    : sql`to_json(p.owner)::text`;
  const owners = page.countOwners
    ? sql`(select count(*) from (
        select distinct owner from nft_ownership
        where network = ${network} and contract = ${contract} and amount > 0 order by owner limit ${countCap}
      ) c)`
    : sql`null`;
  const { rows } = await sql<{ json: string | null; last: string | null; found: string; owners: string | null }>`
    with holders as (
      select distinct owner from nft_ownership
      where network = ${network} and contract = ${contract} and amount > 0 ${after}
      order by owner
      limit ${page.limit + 1}
    ), p as (
      select owner from holders order by owner limit ${page.limit}
    )
    select
      (select count(*) from holders) as found,
      (select max(owner) from p) as last,
      ${owners} as owners,
      (select '[' || string_agg(${item}, ',' order by p.owner) || ']' from p) as json`.execute(db);
  const row = rows[0]!;
  return {
    json: row.json ?? '[]',
    last: row.last ?? undefined,
    more: Number(row.found) > page.limit,
    ...(row.owners === null ? {} : { owners: Number(row.owners) }),
  };
}
