import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import { countCap } from './count-cap.ts';
import { type HeldFilter, heldFilterSql, isAirdropped } from './held-filter.ts';
import type { Trait } from './metadata/parse-metadata.ts';

export interface NftMetadataRecord {
  readonly tokenUri: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly imageUrl: string | null;
  readonly traits: readonly Trait[];
  readonly metadataError: string | null;
  readonly fetchedAt: Date;
}

export interface OwnedNftRow {
  readonly contract: string;
  readonly tokenId: string;
  readonly standard: NftStandard;
  readonly amount: string;
  readonly name: string | null;
  readonly imageUrl: string | null;
  /** False until the token's metadata was fetched (or tried) once. */
  readonly hasMetadata: boolean;
  /** Minted to the owner in a transaction another address sent. */
  readonly isAirdrop: boolean;
}

/** The key of one token: '{chain}/{network}', lower-case contract, decimal token id. */
export interface TokenKey {
  readonly network: string;
  readonly contract: string;
  readonly tokenId: string;
}

/** SQL of the NFT APIs: the `nft_metadata` cache and reads of the index (`nft_ownership`, `index_blocks`). */
export function createNftStore(db: Database) {
  return {
    findMetadata: (key: TokenKey) => findMetadata(db, key),
    storedTokenIds: (network: string, contract: string, from: bigint, to: bigint, limit: number) =>
      storedTokenIds(db, network, contract, from, to, limit),
    saveMetadata: (key: TokenKey, record: Omit<NftMetadataRecord, 'fetchedAt'>) => saveMetadata(db, key, record),
    holders: (key: TokenKey) => holders(db, key),
    collectionCounts: (network: string, contract: string) => collectionCounts(db, network, contract),
    ownedBy: (network: string, owner: string, page: OwnedPage) => ownedBy(db, network, owner, page),
    /** Token ids held of each contract, each counted up to `countCap`, in one read. */
    async tokenCounts(network: string, contracts: readonly string[]): Promise<Map<string, number>> {
      const { rows } = await sql<{ contract: string; tokens: string }>`
        select c.contract, (
          select count(*) from (
            select distinct token_id from nft_ownership
            where network = ${network} and contract = c.contract and amount > 0 order by token_id limit ${countCap}
          ) t) as tokens
        from unnest(${[...contracts]}::text[]) as c(contract)`.execute(db);
      return new Map(rows.map((row) => [row.contract, Number(row.tokens)]));
    },
    ownedContracts: (network: string, owner: string) => ownedContracts(db, network, owner),
    everHeldContracts: (network: string, holder: string) => everHeldContracts(db, network, holder),
    indexedHead: (network: string) => indexedHead(db, network),
  };
}

async function findMetadata(db: Database, key: TokenKey): Promise<NftMetadataRecord | undefined> {
  const row = await db
    .selectFrom('nft_metadata')
    .selectAll()
    .where('network', '=', key.network)
    .where('contract', '=', key.contract)
    .where('token_id', '=', key.tokenId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    tokenUri: row.token_uri,
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    traits: row.traits,
    metadataError: row.metadata_error,
    fetchedAt: new Date(row.fetched_at),
  };
}

/** Token ids of a contract in [from, to] with a row in the cache, ascending (the primary key's order). */
async function storedTokenIds(
  db: Database,
  network: string,
  contract: string,
  from: bigint,
  to: bigint,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('nft_metadata')
    .select(sql<string>`token_id::text`.as('token_id'))
    .where('network', '=', network)
    .where('contract', '=', contract)
    .where('token_id', '>=', from.toString())
    .where('token_id', '<=', to.toString())
    .orderBy('token_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.token_id);
}

async function saveMetadata(
  db: Database,
  key: TokenKey,
  record: Omit<NftMetadataRecord, 'fetchedAt'>,
): Promise<NftMetadataRecord> {
  const fetchedAt = new Date();
  const values = {
    token_uri: record.tokenUri,
    name: record.name,
    description: record.description,
    image_url: record.imageUrl,
    traits: JSON.stringify(record.traits),
    metadata_error: record.metadataError,
    fetched_at: fetchedAt,
  };
  await db
    .insertInto('nft_metadata')
    .values({ network: key.network, contract: key.contract, token_id: key.tokenId, ...values })
    .onConflict((conflict) => conflict.columns(['network', 'contract', 'token_id']).doUpdateSet(values))
    .execute();
  return { ...record, fetchedAt };
}

/** Up to two holders: enough to tell "exactly one" from "several". */
async function holders(db: Database, key: TokenKey): Promise<string[]> {
  const rows = await db
    .selectFrom('nft_ownership')
    .select('owner')
    .where('network', '=', key.network)
    .where('contract', '=', key.contract)
    .where('token_id', '=', key.tokenId)
    .where('amount', '>', '0')
    .orderBy('owner')
    .limit(2)
    .execute();
  return rows.map((row) => row.owner);
}

/** A collection's held token ids and owners, each counted up to `countCap` (a bounded read of the contract's index entries). */
async function collectionCounts(db: Database, network: string, contract: string): Promise<{ tokens: number; owners: number }> {
  const held = sql`network = ${network} and contract = ${contract} and amount > 0`;
  const { rows } = await sql<{ tokens: string; owners: string }>`
    select
      (select count(*) from (select distinct token_id from nft_ownership where ${held} order by token_id limit ${countCap}) t) as tokens,
      (select count(*) from (select distinct owner from nft_ownership where ${held} order by owner limit ${countCap}) o) as owners`.execute(
    db,
  );
  return { tokens: Number(rows[0]?.tokens ?? 0), owners: Number(rows[0]?.owners ?? 0) };
}

export interface OwnedPage {
  offset: number;
  limit: number;
  /** The tokens kept (the spam and airdrop filters). */
  filter: HeldFilter;
}

/** Distinct contracts an owner holds a token of, at most this many (the spam filter judges them). */
export const maxOwnedContracts = 1000;

async function ownedContracts(db: Database, network: string, owner: string): Promise<string[]> {
  const { rows } = await sql<{ contract: string }>`
    select distinct contract from nft_ownership
    where network = ${network} and owner = ${owner} and amount > 0
    order by contract
    limit ${maxOwnedContracts}`.execute(db);
  return rows.map((row) => row.contract);
}

/** Distinct collections any indexed transfer moved to or from the holder, at most `maxOwnedContracts`. */
async function everHeldContracts(db: Database, network: string, holder: string): Promise<string[]> {
  const rows = await db
    .selectFrom('nft_holder_collections')
    .select('contract')
    .where('network', '=', network)
    .where('holder', '=', holder)
    .orderBy('contract')
    .limit(maxOwnedContracts)
    .execute();
  return rows.map((row) => row.contract);
}

async function ownedBy(
  db: Database,
  network: string,
  owner: string,
  page: OwnedPage,
): Promise<{ items: OwnedNftRow[]; total: number }> {
  const held = sql`o.network = ${network} and o.owner = ${owner} and o.amount > 0 ${heldFilterSql(page.filter)}`;
  const [{ rows }, count] = await Promise.all([
    sql<{
      contract: string;
      token_id: string;
      standard: NftStandard;
      amount: string;
      name: string | null;
      image_url: string | null;
      fetched_at: Date | null;
      is_airdrop: boolean;
    }>`
      select o.contract, o.token_id::text as token_id, o.standard, o.amount::text as amount, m.name, m.image_url, m.fetched_at,
        ${isAirdropped} as is_airdrop
      from nft_ownership o
      left join nft_metadata m on m.network = o.network and m.contract = o.contract and m.token_id = o.token_id
      where ${held}
      order by o.contract, o.token_id
      offset ${page.offset} limit ${page.limit}`.execute(db),
    sql<{ total: string }>`select count(*) as total from (select 1 from nft_ownership o where ${held} limit ${countCap}) held`
      .execute(db)
      .then((result) => result.rows[0]!),
  ]);
  const items: OwnedNftRow[] = rows.map((row) => ({
    contract: row.contract,
    tokenId: row.token_id,
    standard: row.standard,
    amount: row.amount,
    name: row.name,
    imageUrl: row.image_url,
    hasMetadata: row.fetched_at !== null,
    isAirdrop: row.is_airdrop,
  }));
  return { items, total: Number(count.total) };
}

/** The newest block the index holds for the network, or null before the first. */
async function indexedHead(db: Database, network: string): Promise<number | null> {
  const row = await db
    .selectFrom('index_blocks')
    .select((eb) => eb.fn.max('number').as('head'))
    .where('network', '=', network)
    .executeTakeFirst();
  return row?.head === null || row?.head === undefined ? null : Number(row.head);
}

export type NftStore = ReturnType<typeof createNftStore>;
