import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackfillLinkError, createBackfillStore } from '../../src/indexer/backfill-store.ts';
import type { BlockFacts } from '../../src/indexer/decode-block.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Two backfill writes under way at once (src/indexer/backfill-worker.ts): the second writes its own
 * blocks' rows while the first is still open, but its shared rows and the job's progress only after
 * the first ended, and it fails (writing nothing) when the first did.
 */
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const token = address(0x70);
const holder = address(0x71);

/** Block `number`: one transaction moving one token from `holder` to a new address. */
function block(number: number): BlockFacts {
  const tx = word(0xa000 + number);
  return {
    number,
    hash: word(number),
    parentHash: word(number - 1),
    timestamp: new Date('2026-12-03T00:00:00Z'),
    gasUsed: 21_000n,
    transactions: [{ hash: tx, index: 0, from: holder, to: token, value: 0n, status: 1, contractCreated: null, selector: null }],
    logs: [],
    tokenTransfers: [{ contract: token, from: holder, to: address(number), value: 1n, logIndex: 0, transactionHash: tx }],
    nftTransfers: [],
    nativeTransfers: [],
    internalTransfers: [],
  };
}

const progress = { transfers: 2, blocksPerSecond: 1, transfersPerSecond: 1 };

describe('overlapping backfill writes', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  const storedBlocks = async (network: string) =>
    (
      await sql<{ number: string }>`select number from index_blocks where network = ${network} order by number`.execute(
        database.db,
      )
    ).rows.map((row) => Number(row.number));

  it('commit in block order: the second waits for the first before the rows they share', async () => {
    const store = createBackfillStore(database.db);
    const network = 'acme/ordered';
    const job = await store.create(network, 10, 13);
    // The first write's holdings row is held by another transaction, so the first stops there.
    await sql`insert into token_holdings (network, holder, contract, first_block) values (${network}, ${holder}, ${token}, 100)`.execute(
      database.db,
    );
    let releaseHolding!: () => void;
    const holding = database.db.transaction().execute(async (trx) => {
      await sql`select 1 from token_holdings where network = ${network} and holder = ${holder} for update`.execute(trx);
      await new Promise<void>((resolve) => (releaseHolding = resolve));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));

    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = store.writeWindow(job, [block(10), block(11)], progress, { onLocked: firstLocked });
    await locked;
    const second = store.writeWindow(job, [block(12), block(13)], progress, { after: 10 });
    const ended: string[] = [];
    void first.then(() => ended.push('first'));
    void second.then(() => ended.push('second'));

    // The first waits on the held row; the second has written its own rows and waits for the first's lock.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const waiting = await sql<{ wait_event: string; query: string }>`
        select wait_event, query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
        database.db,
      );
      const waits = waiting.rows.map((row) => `${row.wait_event}: ${row.query.trim().split('\n')[0]}`).sort();
      if (
        waits.length === 2 &&
        waits[0]!.startsWith('advisory: select pg_advisory_xact_lock') &&
        waits[1]!.replaceAll('"', '').startsWith('transactionid: insert into token_holdings')
      )
        break;
      if (Date.now() > deadline) throw new Error(`the writes wait on: ${JSON.stringify(waits)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wroteOwnRows = await sql<{ n: string }>`
      select count(*) as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where a.wait_event = 'advisory' and l.granted and l.relation = 'token_transfers'::regclass and l.mode = 'RowExclusiveLock'`.execute(
      database.db,
    );
    expect(Number(wroteOwnRows.rows[0]!.n), 'the waiting second write has inserted its transfers').toBe(1);
    expect(ended, 'neither committed while the first is held').toEqual([]);
    expect(await storedBlocks(network)).toEqual([]);

    releaseHolding();
    await holding;
    const [afterFirst, afterSecond] = await Promise.all([first, second]);
    expect(ended).toEqual(['first', 'second']);
    expect(afterFirst.next).toBe(12);
    expect(afterSecond).toMatchObject({ next: 14, status: 'done', transfers: 4 });
    expect(await storedBlocks(network)).toEqual([10, 11, 12, 13]);
    const firstBlock = await sql<{ first_block: string }>`
      select first_block from token_holdings where network = ${network} and holder = ${holder}`.execute(database.db);
    expect(Number(firstBlock.rows[0]!.first_block), 'the earliest block wins').toBe(10);
  });

  it('a write after one that failed fails too, and leaves nothing behind', async () => {
    const store = createBackfillStore(database.db);
    const network = 'acme/failed';
    const job = await store.create(network, 10, 13);
    // The first does not start at the job's next block (10): its progress update finds nothing.
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = store.writeWindow(job, [block(11)], progress, { onLocked: firstLocked });
    const firstFailed = first.catch((error) => error);
    await locked;
    const second = await store.writeWindow(job, [block(12), block(13)], progress, { after: 11 }).catch((error) => error);
    expect(await firstFailed).toBeInstanceOf(BackfillLinkError);
    expect(second).toBeInstanceOf(BackfillLinkError);
    expect(await storedBlocks(network)).toEqual([]);
    const count = await sql<{ n: string }>`select count(*) as n from token_transfers where network = ${network}`.execute(
      database.db,
    );
    expect(Number(count.rows[0]!.n)).toBe(0);
    expect((await store.get(job.id))?.next).toBe(10);
  });
});
