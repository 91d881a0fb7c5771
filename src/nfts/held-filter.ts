import { type RawBuilder, sql } from 'kysely';

/**
 * Which of an owner's held tokens a list keeps (rows of `nft_ownership as o`): the caller's contracts,
 * less the excluded ones (excludeFilters), or only those matching any of `only` (includeFilters).
 */
export interface HeldFilter {
  /** contractAddresses: only these contracts. */
  readonly contracts?: readonly string[];
  /** Contracts left out (excludeFilters SPAM). */
  readonly excludeContracts?: readonly string[];
  /** Leave out airdropped tokens (excludeFilters AIRDROPS). */
  readonly excludeAirdrops?: boolean;
  /** Keep only tokens of these contracts or airdropped ones, either one (includeFilters SPAM, AIRDROPS). */
  readonly only?: { readonly contracts?: readonly string[]; readonly airdrops?: boolean };
}

/**
 * Alchemy's airdrop: a token minted to its holder in a transaction another address sent, as the
 * indexer records it in `nft_airdrops` (read in the ownership index's order, by holder and token).
 */
export const isAirdropped = sql<boolean>`exists (
  select 1 from nft_airdrops a
  where a.network = o.network and a.owner = o.owner and a.contract = o.contract and a.token_id = o.token_id)`;

/** Whether the filter can keep nothing at all (includeFilters naming only an empty spam list), so no query is needed. */
export function keepsNothing(filter: HeldFilter): boolean {
  if (filter.contracts?.length === 0) return true;
  const only = filter.only;
  return only !== undefined && !only.airdrops && !only.contracts?.length;
}

/** The filter as `and …` conditions on `o`, empty when it keeps every held token. */
export function heldFilterSql(filter: HeldFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.contracts?.length) parts.push(sql`o.contract in (${sql.join(filter.contracts)})`);
  if (filter.excludeContracts?.length) parts.push(sql`o.contract not in (${sql.join(filter.excludeContracts)})`);
  if (filter.excludeAirdrops) parts.push(sql`not ${isAirdropped}`);
  if (filter.only) {
    const either: RawBuilder<unknown>[] = [];
    if (filter.only.contracts?.length) either.push(sql`o.contract in (${sql.join(filter.only.contracts)})`);
    if (filter.only.airdrops) either.push(isAirdropped);
    parts.push(either.length ? sql`(${sql.join(either, sql` or `)})` : sql`false`);
  }
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}
