import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { migrateUpTo, runMigration } from '../support/migrate-up-to.ts';

const airdrops = '2026-12-05T1000-nft-airdrops';
const acquiredBlock = '2026-12-05T1100-nft-acquired-block';
const holderCollections = '2026-12-06T2315-nft-holder-collections';
const zero = '0x0000000000000000000000000000000000000000';
const [alice, bob, nft] = ['a', 'b', 'c'].map((digit) => `0x${digit.repeat(40)}`) as [string, string, string];
const [holder, sender] = [alice, bob];

/**
 * The migrations that give the NFT index `nft_airdrops`, `nft_ownership.acquired_block` and
 * `nft_holder_collections` fill them for the blocks indexed before them, from the transfers and their transactions. One database, migrated in
 * order: each test runs the migrations up to its own.
 */
describe('NFT index migrations of 2026-12-05 and 2026-12-06', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.close();
  });

  it(`${airdrops}: records each mint to an address in a transaction another address sent, and nothing else`, async () => {
    const db = database.db;
    await migrateUpTo(db, airdrops);
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

    await runMigration(db, airdrops);
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

  it(`${acquiredBlock}: sets each holding's newest block of a transfer to its owner, null where none is indexed`, async () => {
    const db = database.db;
    // Another collection than the first test's, whose rows stay in the database.
    const items = `0x${'d'.repeat(40)}`;
    await migrateUpTo(db, acquiredBlock, airdrops);
    const transfer = (block: number, from: string, to: string, tokenId: number, amount = 1) =>
      sql`insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, from_address, to_address, token_id, amount)
          values ('ethereum/devnet', ${block}, 0, 0, '0x01', ${items}, 'ERC1155', ${from}, ${to}, ${tokenId}, ${amount})`.execute(
        db,
      );
    const own = (owner: string, tokenId: number, amount: number) =>
      sql`insert into nft_ownership (network, contract, token_id, owner, standard, amount)
          values ('ethereum/devnet', ${items}, ${tokenId}, ${owner}, 'ERC1155', ${amount})`.execute(db);
    await transfer(3, zero, alice, 1, 5);
    await transfer(7, alice, bob, 1, 2);
    await transfer(9, zero, alice, 1, 1); // alice receives token 1 again: her newest acquisition
    await transfer(8, zero, bob, 2);
    await own(alice, 1, 4);
    await own(bob, 1, 2);
    await own(bob, 2, 1);
    await own(alice, 3, -1); // a row whose incoming transfer is not indexed

    await runMigration(db, acquiredBlock);
    const rows = await db
      .selectFrom('nft_ownership')
      .select(['owner', 'token_id', 'acquired_block'])
      .where('contract', '=', items)
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

  it(`${holderCollections}: records every (holder, collection) pair a transfer touched, sent away or not, first block kept`, async () => {
    const db = database.db;
    // The transfers the two tests above left: collection c in block 1, collection d in blocks 3 to 9.
    await migrateUpTo(db, holderCollections, acquiredBlock);
    await runMigration(db, holderCollections);
    const rows = await db
      .selectFrom('nft_holder_collections')
      .select(['holder', 'contract', 'first_block'])
      .orderBy('contract')
      .orderBy('holder')
      .execute();
    const items = `0x${'d'.repeat(40)}`;
    // Each side of every transfer, whatever it holds now (alice sent part of d to bob); not the zero address.
    expect(rows).toEqual([
      { holder: alice, contract: nft, first_block: '1' },
      { holder: bob, contract: nft, first_block: '1' },
      { holder: alice, contract: items, first_block: '3' },
      { holder: bob, contract: items, first_block: '7' },
    ]);
  });
});
