import { type Kysely, type Migration, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const target = '2026-12-05T1000-nft-airdrops';
const zero = '0x0000000000000000000000000000000000000000';
const [holder, sender, nft] = ['a', 'b', 'c'].map((digit) => `0x${digit.repeat(40)}`) as [string, string, string];

/** The migration that adds `nft_airdrops` derives the rows of blocks indexed before it from the transfers. */
describe(`migration ${target}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('records each mint to an address in a transaction another address sent, and nothing else', async () => {
    const db = database.db;
    const run = async (name: string) => {
      const migration = (await import(new URL(`../../src/db/migrations/${name}.ts`, import.meta.url).href)) as Migration;
      await db.transaction().execute((trx) => migration.up(trx as unknown as Kysely<unknown>));
    };
    for (const name of migrationNames.slice(0, migrationNames.indexOf(target))) await run(name);
    const tx = (hash: string, from: string) =>
      sql`insert into index_transactions (network, hash, block_number, tx_index, from_address, to_address, value, status)
          values ('ethereum/devnet', ${hash}, 1, 0, ${from}, ${nft}, 0, 1)`.execute(db);
    const transfer = (logIndex: number, hash: string, from: string, to: string, tokenId: number) =>
      sql`insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, from_address, to_address, token_id, amount)
          values ('ethereum/devnet', 1, ${logIndex}, 0, ${hash}, ${nft}, 'ERC721', ${from}, ${to}, ${tokenId}, 1)`.execute(db);
    await tx('0x01', sender);
    await tx('0x02', holder);
    await transfer(0, '0x01', zero, holder, 1); // minted to the holder by another: an airdrop
    await transfer(1, '0x02', zero, holder, 2); // minted by the holder itself
    await transfer(2, '0x01', holder, sender, 2); // a transfer, not a mint
    await transfer(3, '0x03', zero, holder, 3); // its transaction is not indexed: not judged

    await run(target);
    const rows = await db.selectFrom('nft_airdrops').selectAll().execute();
    expect(rows).toEqual([
      {
        network: 'ethereum/devnet',
        block_number: '1',
        log_index: 0,
        batch_index: 0,
        owner: holder,
        contract: nft,
        token_id: '1',
      },
    ]);
  });
});
