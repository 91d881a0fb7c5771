import { sql } from 'kysely';
import { arrayLiteral } from '../db/array-literal.ts';
import { type BlockFacts, zeroAddress } from './decode-block.ts';
import type { Trx } from './store.ts';

interface FirstSeen {
  holder: string;
  contract: string;
  block: number;
}

/**
 * Remembers every (holder, token) pair a token transfer touched and every (holder, collection) pair
 * an NFT transfer touched, each with the first block it was seen in.
 */
export async function updateHoldings(trx: Trx, network: string, blocks: readonly BlockFacts[]) {
  await insertFirstSeen(
    trx,
    'token_holdings',
    network,
    firstSeenPairs(blocks, (block) => block.tokenTransfers),
  );
  await insertFirstSeen(
    trx,
    'nft_holder_collections',
    network,
    firstSeenPairs(blocks, (block) => block.nftTransfers),
  );
}

function firstSeenPairs(
  blocks: readonly BlockFacts[],
  transfersOf: (block: BlockFacts) => readonly { from: string; to: string; contract: string }[],
): FirstSeen[] {
  const firstSeen = new Map<string, FirstSeen>();
  for (const block of blocks) {
    for (const transfer of transfersOf(block)) {
      for (const holder of [transfer.from, transfer.to]) {
        if (holder === zeroAddress) continue;
        const key = `${holder}:${transfer.contract}`;
        if (!firstSeen.has(key)) firstSeen.set(key, { holder, contract: transfer.contract, block: block.number });
      }
    }
  }
  // In key order, as every writer does: a backfill and the head may write the same rows at once.
  return [...firstSeen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, pair]) => pair);
}

async function insertFirstSeen(
  trx: Trx,
  table: 'token_holdings' | 'nft_holder_collections',
  network: string,
  pairs: readonly FirstSeen[],
) {
  if (pairs.length === 0) return;
  const target = sql.table(table);
  // The earliest block wins: a backfill fills blocks older than those the head indexed first.
  await sql`
    insert into ${target} (network, holder, contract, first_block)
    select ${network}, * from unnest(${arrayLiteral(pairs.map((p) => p.holder))}::text[], ${arrayLiteral(pairs.map((p) => p.contract))}::text[], ${arrayLiteral(pairs.map((p) => p.block))}::int8[])
    on conflict (network, holder, contract) do update set first_block = least(${target}.first_block, excluded.first_block)
    where excluded.first_block < ${target}.first_block`.execute(trx);
}
