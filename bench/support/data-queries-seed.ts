// What bench/data-queries.ts puts in the service's database: a chain-sized index in a realistic shape,
// written straight into the index's tables (as the indexer would, without a chain to replay). Token
// contracts and addresses are drawn from skewed (Zipf-like) distributions: a few tokens (USDC-like)
// and "router" addresses have hundreds of thousands of transfers, most have a handful. Draws are
// hashes of the row number, so a run seeds the same rows every time.
import pg from 'pg';

export interface DataQuerySeed {
  network: string;
  /** Rows of token_transfers; the other tables are sized from it. */
  rows: number;
  /** The indexed blocks the rows are spread over (1..blocks). */
  blocks: number;
}

/** The shape of the seeded chain. */
export const seedShape = {
  tokens: 2_000,
  /** Zipf exponent of the token draw: rank 1 holds ~21% of the ERC-20 transfers, rank 2,000 ~0.002%. */
  tokenSkew: 1.3,
  addresses: 200_000,
  nftContracts: 200,
  /** nft_transfers, native_transfers and internal_transfers rows, as shares of token_transfers rows. */
  nftShare: 0.1,
  nativeShare: 0.2,
  internalShare: 0.05,
  zeroValueShare: 0.02,
} as const;

export const zeroAddress = '0x0000000000000000000000000000000000000000';
const prefixes = { token: 'e20e', nft: 'e721', holder: 'acc0' } as const;

/** The address of the token, NFT contract or holder of this rank (1 = the busiest). */
export function seededAddress(kind: keyof typeof prefixes, rank: number): string {
  return `0x${prefixes[kind]}${rank.toString(16).padStart(36, '0')}`;
}

/** Every fourth NFT contract is an ERC-1155 one (of 50 token ids); the others ERC-721 collections. */
export function nftStandardOf(rank: number): 'ERC721' | 'ERC1155' {
  return rank % 4 === 0 ? 'ERC1155' : 'ERC721';
}

export interface SeedFacts {
  ms: number;
  /** Rows per table after the seed (the planner's counts, after ANALYZE). */
  tables: Record<string, number>;
}

// SQL pieces over the row number `i` of generate_series.
/** A uniform draw in [0, 1) from the row number: one stream per `stream`. */
const uniform = (stream: number) => `((hashint8extended(i, ${stream}) & 4503599627370495)::float8 / 4503599627370496.0)`;
/** A Zipf-like rank in 1..n (continuous power law of exponent s; s = 1 is log-uniform). */
function rank(stream: number, n: number, s: number): string {
  const u = uniform(stream);
  const raw = s === 1 ? `exp(${u} * ln(${n + 1}))` : `power(1 - ${u} * (1 - power(${n + 1}, ${1 - s})), ${1 / (1 - s)})`;
  return `least(${n}, floor(${raw}))::int8`;
}
const address = (kind: keyof typeof prefixes, rankSql: string) => `'0x${prefixes[kind]}' || lpad(to_hex(${rankSql}), 36, '0')`;
const holder = (stream: number) => address('holder', rank(stream, seedShape.addresses, 1));
const hash = (tag: number) => `'0x' || lpad(to_hex(${tag}::int8 * 4294967296 + i), 64, '0')`;
const block = (blocks: number, n: number) => `1 + ((i - 1) * ${blocks}) / ${n}`;
const amount = (stream: number) => `(1 + floor(${uniform(stream)} * 1000000))::numeric * 1000000000000`;

const tables = [
  'token_transfers',
  'nft_transfers',
  'nft_airdrops',
  'native_transfers',
  'internal_transfers',
  'token_holdings',
  'nft_ownership',
  'nft_metadata',
  'token_metadata',
];

/** Seeds every table in one transaction, then ANALYZE (as autovacuum would soon); returns how long it took. */
export async function seedDataQueries(url: string, seed: DataQuerySeed, log: (line: string) => void): Promise<SeedFacts> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  const step = async (what: string, text: string, values: unknown[] = []) => {
    const at = performance.now();
    const result = await client.query(text, values);
    log(`  ${what}: ${result.rowCount ?? 0} rows in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  };
  try {
    // The service's database may carry a statement_timeout for its own sessions: not for the seed.
    await client.query('set statement_timeout = 0');
    await client.query('begin');
    // This session's memory for sorts and index builds only; the service's settings are untouched.
    await client.query(`set local work_mem = '256MB'`);
    await client.query(`set local maintenance_work_mem = '512MB'`);
    const indexes = await dropSecondaryIndexes(client);
    await insertTransfers(seed, step);
    await insertDerived(seed.network, step);
    // Built in bulk once the rows are in, as the migrations define them: far faster than row by row.
    const at = performance.now();
    for (const definition of indexes) await client.query(definition);
    log(`  ${indexes.length} secondary indexes rebuilt in ${((performance.now() - at) / 1000).toFixed(1)} s`);
    await client.query('commit');
    await client.query(`analyze ${tables.join(', ')}`);
    const { rows } = await client.query<{ relname: string; reltuples: number }>(
      'select relname, reltuples::float8 as reltuples from pg_class where relname = any($1)',
      [tables],
    );
    return {
      ms: performance.now() - started,
      tables: Object.fromEntries(rows.map((row) => [row.relname, Math.round(row.reltuples)])),
    };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Drops the seeded tables' indexes that back no constraint; returns their definitions, to build them again. */
async function dropSecondaryIndexes(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i join pg_class t on t.oid = i.indrelid
     where t.relname = any($1) and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    [tables],
  );
  for (const row of rows) await client.query(`drop index ${row.name}`);
  return rows.map((row) => row.definition);
}

type Step = (what: string, text: string, values?: unknown[]) => Promise<void>;

async function insertTransfers(seed: DataQuerySeed, step: Step): Promise<void> {
  const { network, rows, blocks } = seed;
  const nfts = Math.round(rows * seedShape.nftShare);
  await step(
    'token_transfers',
    `insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
     select $1, ${block(blocks, rows)}, i, ${hash(1)}, ${address('token', rank(1, seedShape.tokens, seedShape.tokenSkew))},
       ${holder(2)}, ${holder(3)},
       case when ${uniform(4)} < ${seedShape.zeroValueShare} then 0 else ${amount(5)} end
     from generate_series(1::int8, $2::int8) i`,
    [network, rows],
  );
  // NFT transfers follow each token from owner to owner: a token's first transfer is its mint (from
  // the zero address), each later one is sent by the previous receiver. Positions follow the ERC-20
  // rows' so that no two log rows of a block share one.
  const nftRank = rank(11, seedShape.nftContracts, 1);
  await step(
    'nft_transfers',
    `insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, operator,
       from_address, to_address, token_id, amount)
     select $1, block_number, log_index, 0, tx_hash, contract, standard, null,
       coalesce(lag(to_address) over (partition by contract, token_id order by log_index), '${zeroAddress}'),
       to_address, token_id, case when standard = 'ERC1155' then 1 + token_id % 5 else 1 end
     from (
       select block_number, log_index, tx_hash, ${address('nft', 'r')} as contract,
         case when r % 4 = 0 then 'ERC1155' else 'ERC721' end as standard, to_address,
         case when r % 4 = 0 then 1 + floor(u * 50) when r <= 10 then 1 + floor(u * 10000) else 1 + floor(u * 500) end::numeric as token_id
       from (
         select ${block(blocks, nfts)} as block_number, ($3 + i)::int4 as log_index, ${hash(4)} as tx_hash, ${nftRank} as r,
           ${uniform(12)} as u, ${holder(13)} as to_address
         from generate_series(1::int8, $2::int8) i
       ) g
     ) t`,
    [network, nfts, rows],
  );
  const natives = Math.round(rows * seedShape.nativeShare);
  await step(
    'native_transfers',
    `insert into native_transfers (network, block_number, tx_hash, from_address, to_address, value)
     select $1, ${block(blocks, natives)}, ${hash(2)}, ${holder(21)}, ${holder(22)}, ${amount(23)}
     from generate_series(1::int8, $2::int8) i`,
    [network, natives],
  );
  const internals = Math.round(rows * seedShape.internalShare);
  await step(
    'internal_transfers',
    `insert into internal_transfers (network, block_number, tx_hash, trace_path, call_type, from_address, to_address, value)
     select $1, ${block(blocks, internals)}, ${hash(3)}, '0.' || (i % 3), 'call', ${holder(31)}, ${holder(32)}, ${amount(33)}
     from generate_series(1::int8, $2::int8) i`,
    [network, internals],
  );
}

/** The tables the indexer derives from the transfers, derived the same way, and the metadata caches filled. */
async function insertDerived(network: string, step: Step): Promise<void> {
  await step(
    'token_holdings',
    `insert into token_holdings (network, holder, contract, first_block)
     select $1, holder, contract, min(block_number) from (
       select from_address as holder, contract, block_number from token_transfers where network = $1
       union all
       select to_address, contract, block_number from token_transfers where network = $1
     ) s where holder <> '${zeroAddress}' group by holder, contract`,
    [network],
  );
  // Ownership is the sum of every transfer's delta, as src/indexer/store.ts applyOwnership keeps it.
  await step(
    'nft_ownership',
    `insert into nft_ownership (network, contract, token_id, owner, standard, amount, acquired_block)
     select $1, contract, token_id, owner, min(standard), sum(delta), max(acquired) from (
       select contract, token_id, to_address as owner, standard, amount as delta, block_number as acquired from nft_transfers
       where network = $1 and to_address <> '${zeroAddress}'
       union all
       select contract, token_id, from_address, standard, -amount, null from nft_transfers
       where network = $1 and from_address <> '${zeroAddress}'
     ) d group by contract, token_id, owner having sum(delta) <> 0`,
    [network],
  );
  // One mint in three was sent by someone other than its recipient (the seed has no transactions):
  // the AIRDROPS filter's rows, as the indexer writes them.
  await step(
    'nft_airdrops',
    `insert into nft_airdrops (network, block_number, log_index, batch_index, owner, contract, token_id)
     select network, block_number, log_index, batch_index, to_address, contract, token_id from nft_transfers
     where network = $1 and from_address = '${zeroAddress}' and log_index % 3 = 0`,
    [network],
  );
  // A long-running service has fetched its tokens' metadata: lists read it instead of queueing fetches.
  await step(
    'nft_metadata',
    `insert into nft_metadata (network, contract, token_id, token_uri, name, description, image_url)
     select $1, contract, token_id, 'ipfs://bafybeibenchmark/' || token_id, 'Token #' || token_id, 'Seeded', null
     from nft_ownership where network = $1 and amount > 0 group by contract, token_id`,
    [network],
  );
  await step(
    'token_metadata',
    `insert into token_metadata (network, contract, name, symbol, decimals)
     select $1, ${address('token', 'r')}, 'Token ' || r, 'TK' || r, case when r % 3 = 0 then 6 else 18 end
     from generate_series(1, $2::int8) r
     on conflict do nothing`,
    [network, seedShape.tokens],
  );
}

/** How many rows the named tokens and holders have (the rows the queries of the run look at). */
export async function describeSeed(
  url: string,
  network: string,
  probe: { tokens: Record<string, string>; holders: Record<string, string> },
): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('set statement_timeout = 0');
    const lines: string[] = [];
    const tokens = Object.values(probe.tokens);
    const { rows } = await client.query<{ contract: string; n: string }>(
      'select contract, count(*) as n from token_transfers where network = $1 and contract = any($2) group by contract',
      [network, tokens],
    );
    const counts = new Map(rows.map((row) => [row.contract, Number(row.n)]));
    for (const [name, contract] of Object.entries(probe.tokens)) {
      lines.push(`${name} ${contract}: ${(counts.get(contract) ?? 0).toLocaleString('en-US')} ERC-20 transfers`);
    }
    for (const [name, who] of Object.entries(probe.holders)) {
      const { rows: sides } = await client.query<{ sent: string; received: string }>(
        `select (select count(*) from token_transfers where network = $1 and from_address = $2) as sent,
                (select count(*) from token_transfers where network = $1 and to_address = $2) as received`,
        [network, who],
      );
      const side = sides[0]!;
      lines.push(
        `${name} ${who}: ${Number(side.sent).toLocaleString('en-US')} ERC-20 transfers sent, ${Number(side.received).toLocaleString('en-US')} received`,
      );
    }
    return lines;
  } finally {
    await client.end();
  }
}
