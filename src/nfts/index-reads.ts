import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import { readIndexHead } from '../indexer/index-head.ts';
import { countCap } from './count-cap.ts';
import { type HeldFilter, heldFilterSql } from './held-filter.ts';
import { readHoldersJson } from './holders-json.ts';
import type { Trait } from './metadata/parse-metadata.ts';
import type { NftMetadataRecord } from './store.ts';

/** A token of the index with its cached metadata (null until it was fetched or tried once). */
export interface IndexedToken {
  readonly contract: string;
  readonly tokenId: string;
  readonly standard: NftStandard;
  /** Units the owner holds; for a contract's token list, the units all owners hold. */
  readonly amount: string;
  readonly metadata: NftMetadataRecord | null;
}

/** Where a page of the newest-acquired-first list ends: the last token's acquisition block and key. */
export interface AcquisitionKey {
  readonly block: number | null;
  readonly contract: string;
  readonly tokenId: string;
}

/** A held token with the block (and its time) of the newest transfer that brought it to the owner. */
export interface AcquiredToken extends IndexedToken {
  readonly acquiredBlock: number | null;
  readonly acquiredAt: Date | null;
}

export interface IndexedHead {
  readonly number: number;
  readonly hash: string;
  readonly timestamp: Date;
}

/** Where a page of an owner's contracts ends: the last contract, and its newest acquisition when ordered by it. */
export interface ContractsAfter {
  readonly contract: string;
  readonly block?: number | null;
}

/** One contract an owner holds tokens of, with the first of them (its display token). */
export interface OwnedContract {
  readonly contract: string;
  readonly standard: NftStandard;
  /** Units held across the contract's tokens, decimal. */
  readonly totalBalance: string;
  readonly distinctTokens: number;
  readonly displayToken: { tokenId: string; name: string | null; imageUrl: string | null };
  /** The newest block a held token of the contract came to the owner in; null when none is indexed. */
  readonly acquiredBlock: number | null;
}

/** Tokens of a collection per trait value, and how many tokens were counted. */
export interface TraitCounts {
  readonly tokens: number;
  readonly counts: readonly { traitType: string; value: string; tokens: number }[];
}

interface TokenRow {
  contract: string;
  token_id: string;
  standard: NftStandard;
  amount: string;
  token_uri: string | null;
  name: string | null;
  description: string | null;
  image_url: string | null;
  traits: Trait[] | null;
  metadata_error: string | null;
  fetched_at: Date | string | null;
}

function toIndexedToken(row: TokenRow): IndexedToken {
  const metadata =
    row.fetched_at === null
      ? null
      : {
          tokenUri: row.token_uri,
          name: row.name,
          description: row.description,
          imageUrl: row.image_url,
          traits: row.traits ?? [],
          metadataError: row.metadata_error,
          fetchedAt: new Date(row.fetched_at),
        };
  return { contract: row.contract, tokenId: String(row.token_id), standard: row.standard, amount: String(row.amount), metadata };
}

/** `counted` (a count over `contract`) of an owner's held tokens the filter keeps, reading at most `countCap` of them. */
async function countHeld(db: Database, network: string, owner: string, filter: HeldFilter, counted: RawBuilder<unknown>) {
  const { rows } = await sql<{ total: string }>`
    select ${counted} as total from (
      select o.contract from nft_ownership o
      where o.network = ${network} and o.owner = ${owner} and o.amount > 0 ${heldFilterSql(filter)}
      limit ${countCap}
    ) held`.execute(db);
  return Number(rows[0]?.total ?? 0);
}

/**
 * After a page's last row in the newest-acquired-first order (`acquired desc nulls last`, then `tie`'s
 * key): older acquisitions, unknown ones, or the same block further on by the key.
 */
function acquiredAfter(block: number | null, acquired: RawBuilder<unknown>, tie: RawBuilder<unknown>, keyword: 'and' | 'where') {
  const lead = sql.raw(keyword);
  return block === null
    ? sql`${lead} ${acquired} is null and ${tie}`
    : sql`${lead} (${acquired} < ${block} or ${acquired} is null or (${acquired} = ${block} and ${tie}))`;
}

const metadataColumns = sql`m.token_uri, m.name, m.description, m.image_url, m.traits, m.metadata_error, m.fetched_at`;

/**
 * Keyset-paged reads of the NFT index (`nft_ownership`, joined with the `nft_metadata` cache), for
 * the lists of Alchemy's NFT API names: a deep page costs what the first does. Each asks for one row
 * more than `limit`, so the caller knows whether another page follows.
 */
export function createNftIndexReads(db: Database) {
  return {
    /** Tokens the owner holds, by contract then token id, after `after` (exclusive). */
    async ownedBy(
      network: string,
      owner: string,
      page: { after?: { contract: string; tokenId: string }; limit: number; filter: HeldFilter },
    ): Promise<IndexedToken[]> {
      const after = page.after
        ? sql`and (o.contract, o.token_id) > (${page.after.contract}, ${page.after.tokenId}::numeric)`
        : sql``;
      const { rows } = await sql<TokenRow>`
        select o.contract, o.token_id::text as token_id, o.standard, o.amount::text as amount, ${metadataColumns}
        from nft_ownership o
        left join nft_metadata m on m.network = o.network and m.contract = o.contract and m.token_id = o.token_id
        where o.network = ${network} and o.owner = ${owner} and o.amount > 0 ${heldFilterSql(page.filter)} ${after}
        order by o.contract, o.token_id
        limit ${page.limit + 1}`.execute(db);
      return rows.map(toIndexedToken);
    },

    /**
     * Tokens the owner holds, the newest acquired first (then by contract and token id), after `after`
     * (exclusive), each with the block it was acquired in (getNFTsForOwner's orderBy=transferTime).
     */
    async ownedByAcquisition(
      network: string,
      owner: string,
      page: { after?: AcquisitionKey; limit: number; filter: HeldFilter },
    ): Promise<AcquiredToken[]> {
      const { after } = page;
      const afterSql = after
        ? acquiredAfter(
            after.block,
            sql`o.acquired_block`,
            sql`(o.contract, o.token_id) > (${after.contract}, ${after.tokenId}::numeric)`,
            'and',
          )
        : sql``;
      const { rows } = await sql<TokenRow & { acquired_block: string | null; acquired_at: Date | string | null }>`
        select o.contract, o.token_id::text as token_id, o.standard, o.amount::text as amount, ${metadataColumns},
          o.acquired_block::text as acquired_block, b.timestamp as acquired_at
        from nft_ownership o
        left join nft_metadata m on m.network = o.network and m.contract = o.contract and m.token_id = o.token_id
        left join index_blocks b on b.network = o.network and b.number = o.acquired_block
        where o.network = ${network} and o.owner = ${owner} and o.amount > 0 ${heldFilterSql(page.filter)} ${afterSql}
        order by o.acquired_block desc nulls last, o.contract, o.token_id
        limit ${page.limit + 1}`.execute(db);
      return rows.map((row) => ({
        ...toIndexedToken(row),
        acquiredBlock: row.acquired_block === null ? null : Number(row.acquired_block),
        acquiredAt: row.acquired_at === null ? null : new Date(row.acquired_at),
      }));
    },

    async countOwnedBy(network: string, owner: string, filter: HeldFilter) {
      return countHeld(db, network, owner, filter, sql`count(*)`);
    },

    /** The contracts an owner holds tokens of, by address, after `after` (exclusive), each with its lowest token id. */
    async contractsOwnedBy(
      network: string,
      owner: string,
      page: { after?: ContractsAfter; limit: number; filter: HeldFilter; byAcquisition?: boolean },
    ): Promise<OwnedContract[]> {
      const { after, byAcquisition = false } = page;
      const limit = sql`limit ${page.limit + 1}`;
      // By address, the index stops the grouping at the page's end; newest first, every held contract is grouped.
      const inner = byAcquisition
        ? sql`group by contract`
        : sql`${after ? sql`and o.contract > ${after.contract}` : sql``} group by contract order by contract ${limit}`;
      const outer = !byAcquisition
        ? sql`order by c.contract`
        : sql`${after ? acquiredAfter(after.block ?? null, sql`c.acquired`, sql`c.contract > ${after.contract}`, 'where') : sql``}
          order by c.acquired desc nulls last, c.contract ${limit}`;
      const { rows } = await sql<{
        contract: string;
        standard: NftStandard;
        total_balance: string;
        distinct_tokens: string;
        first_token_id: string;
        acquired: string | null;
        name: string | null;
        image_url: string | null;
      }>`
        select c.contract, c.standard, c.total_balance, c.distinct_tokens, c.first_token_id::text as first_token_id,
          c.acquired::text as acquired, m.name, m.image_url
        from (
          select contract, min(standard) as standard, sum(amount)::text as total_balance, count(*) as distinct_tokens,
            min(token_id) as first_token_id, max(acquired_block) as acquired
          from nft_ownership o
          where o.network = ${network} and o.owner = ${owner} and o.amount > 0 ${heldFilterSql(page.filter)} ${inner}
        ) c
        left join nft_metadata m on m.network = ${network} and m.contract = c.contract and m.token_id = c.first_token_id
        ${outer}`.execute(db);
      return rows.map((row) => ({
        contract: row.contract,
        standard: row.standard,
        totalBalance: String(row.total_balance),
        distinctTokens: Number(row.distinct_tokens),
        displayToken: { tokenId: String(row.first_token_id), name: row.name, imageUrl: row.image_url },
        acquiredBlock: row.acquired === null ? null : Number(row.acquired),
      }));
    },

    /** Whether the owner holds any token of the contract (one index entry read at most). */
    async holdsAny(network: string, owner: string, contract: string): Promise<boolean> {
      const row = await db
        .selectFrom('nft_ownership')
        .select('token_id')
        .where('network', '=', network)
        .where('owner', '=', owner)
        .where('contract', '=', contract)
        .where('amount', '>', '0')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** How many contracts an owner holds tokens of, reading at most `countCap` of its tokens. */
    async countContractsOwnedBy(network: string, owner: string, filter: HeldFilter) {
      return countHeld(db, network, owner, filter, sql`count(distinct contract)`);
    },

    /** Token ids of a contract someone holds, from `from` (inclusive), in token id order. */
    async tokensOf(network: string, contract: string, page: { from: bigint; limit: number }): Promise<IndexedToken[]> {
      const { rows } = await sql<TokenRow>`
        select t.contract, t.token_id::text as token_id, t.standard, t.amount::text as amount, ${metadataColumns}
        from (
          select contract, token_id, min(standard) as standard, sum(amount) as amount
          from nft_ownership
          where network = ${network} and contract = ${contract} and amount > 0 and token_id >= ${page.from.toString()}::numeric
          group by contract, token_id
          order by token_id
          limit ${page.limit + 1}
        ) t
        left join nft_metadata m on m.network = ${network} and m.contract = t.contract and m.token_id = t.token_id
        order by t.token_id`.execute(db);
      return rows.map(toIndexedToken);
    },

    /** Holders of one token, by address, after `after` (exclusive). */
    async ownersOf(network: string, contract: string, tokenId: string, page: { after?: string; limit: number }) {
      let query = db
        .selectFrom('nft_ownership')
        .select('owner')
        .where('network', '=', network)
        .where('contract', '=', contract)
        .where('token_id', '=', tokenId)
        .where('amount', '>', '0');
      if (page.after !== undefined) query = query.where('owner', '>', page.after);
      const rows = await query
        .orderBy('owner')
        .limit(page.limit + 1)
        .execute();
      return rows.map((row) => row.owner);
    },

    /** Holders of any token of a contract, by address, as the answer's JSON array (holders-json.ts). */
    holdersJson: (
      network: string,
      contract: string,
      page: { after?: string; limit: number; withBalances: boolean; countOwners?: boolean },
    ) => readHoldersJson(db, network, contract, page),

    /**
     * How many held tokens of a contract carry each trait value, over the first `cap` (by token id)
     * whose metadata was fetched without an error; `tokens` is how many that is.
     */
    async traitCounts(network: string, contract: string, cap: number): Promise<TraitCounts> {
      // One read of the sample (materialized): its size and its trait counts come from it alike.
      const { rows } = await sql<{ tokens: string; trait_type: string | null; value: string | null; holders: string | null }>`
        with sample as materialized (
          select m.traits from nft_metadata m
          where m.network = ${network} and m.contract = ${contract} and m.metadata_error is null
            and exists (
              select 1 from nft_ownership o
              where o.network = m.network and o.contract = m.contract and o.token_id = m.token_id and o.amount > 0
            )
          order by m.token_id
          limit ${cap}
        )
        select (select count(*) from sample) as tokens, c.trait_type, c.value, c.holders
        from (select 1) one
        left join (
          select t->>'trait_type' as trait_type, t->>'value' as value, count(*) as holders
          from sample, jsonb_array_elements(sample.traits) t
          group by 1, 2
        ) c on true
        order by c.trait_type, c.value`.execute(db);
      return {
        tokens: Number(rows[0]?.tokens ?? 0),
        counts: rows.flatMap((row) =>
          row.trait_type === null ? [] : [{ traitType: row.trait_type, value: row.value ?? '', tokens: Number(row.holders) }],
        ),
      };
    },

    /** The newest block of the index (number, hash, time), or null before the first. */
    async head(network: string): Promise<IndexedHead | null> {
      return (await readIndexHead(db, network)) ?? null;
    },
  };
}

export type NftIndexReads = ReturnType<typeof createNftIndexReads>;
