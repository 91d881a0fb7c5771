import { type Kysely, type Migration, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const target = '2026-12-05T1100-nft-acquired-block';
const zero = '0x0000000000000000000000000000000000000000';
const [alice, bob, nft] = ['a', 'b', 'c'].map((digit) => `0x${digit.repeat(40)}`) as [string, string, string];

/** The migration that adds `nft_ownership.acquired_block` fills it from the indexed transfers. */
describe(`migration ${target}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("sets each holding's newest block of a transfer to its owner, null where none is indexed", async () => {
    const db = database.db;
    const run = async (name: string) => {
      const migration = (await import(new URL(`../../src/db/migrations/${name}.ts`, import.meta.url).href)) as Migration;
      await db.transaction().execute((trx) => migration.up(trx as unknown as Kysely<unknown>));
    };
    for (const name of migrationNames.slice(0, migrationNames.indexOf(target))) await run(name);
    const transfer = (block: number, from: string, to: string, tokenId: number, amount = 1) =>
      sql`insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, from_address, to_address, token_id, amount)
          values ('ethereum/devnet', ${block}, 0, 0, '0x01', ${nft}, 'ERC1155', ${from}, ${to}, ${tokenId}, ${amount})`.execute(
        db,
      );
    const own = (owner: string, tokenId: number, amount: number) =>
      sql`insert into nft_ownership (network, contract, token_id, owner, standard, amount)
          values ('ethereum/devnet', ${nft}, ${tokenId}, ${owner}, 'ERC1155', ${amount})`.execute(db);
    await transfer(3, zero, alice, 1, 5);
    await transfer(7, alice, bob, 1, 2);
    await transfer(9, zero, alice, 1, 1); // alice receives token 1 again: her newest acquisition
    await transfer(8, zero, bob, 2);
    await own(alice, 1, 4);
    await own(bob, 1, 2);
    await own(bob, 2, 1);
    await own(alice, 3, -1); // a row whose incoming transfer is not indexed

    await run(target);
    const rows = await db
      .selectFrom('nft_ownership')
      .select(['owner', 'token_id', 'acquired_block'])
      .orderBy('owner')
      .orderBy('token_id')
      .execute();
    expect(rows).toEqual([
      { owner: alice, token_id: '1', acquired_block: '9' },
      { owner: alice, token_id: '3', acquired_block: null },
      { owner: bob, token_id: '1', acquired_block: '7' },
      { owner: bob, token_id: '2', acquired_block: '8' },
    ]);
  });
});
