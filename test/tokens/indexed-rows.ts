import type { PublicClient } from 'viem';
import type { Database } from '../../src/db/connect.ts';

/**
 * Stand-ins for the indexer, until the token tests run against it: record the chain's current head
 * as the newest indexed block, and holder/token pairs as the index would after seeing transfers.
 */
export async function recordIndexedHead(db: Database, network: string, client: PublicClient): Promise<bigint> {
  const block = await client.getBlock({ blockTag: 'latest' });
  await db
    .insertInto('index_blocks')
    .values({
      network,
      number: block.number,
      hash: block.hash,
      parent_hash: block.parentHash,
      timestamp: new Date(Number(block.timestamp) * 1000),
      gas_used: block.gasUsed,
      tx_count: block.transactions.length,
    })
    .onConflict((conflict) => conflict.columns(['network', 'number']).doNothing())
    .execute();
  return block.number;
}

export async function recordHoldings(db: Database, network: string, holder: string, contracts: readonly string[]): Promise<void> {
  if (contracts.length === 0) return;
  await db
    .insertInto('token_holdings')
    .values(
      contracts.map((contract) => ({ network, holder: holder.toLowerCase(), contract: contract.toLowerCase(), first_block: 0 })),
    )
    .onConflict((conflict) => conflict.columns(['network', 'holder', 'contract']).doNothing())
    .execute();
}
