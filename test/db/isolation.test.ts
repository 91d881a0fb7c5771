import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connect.ts';
import type { NewAccountRow } from '../../src/db/tables/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Transactions really overlap (the pool has several connections); none may see or keep the other's
 * uncommitted writes. Steps meet at gates with a time limit, so a broken test fails instead of hanging.
 */

/** A one-shot signal; `wait` resolves true when opened, false when the time limit passes first. */
function gate() {
  let open!: () => void;
  let opened = false;
  const promise = new Promise<void>((resolve) => {
    open = () => {
      opened = true;
      resolve();
    };
  });
  return {
    open,
    get opened() {
      return opened;
    },
    wait: (ms = waitLimitMs) => Promise.race([promise.then(() => true), sleep(ms).then(() => false)]),
  };
}

/** How long a step waits for the other transaction: it really runs, so the gate opens soon (the limit guards a loaded machine). */
const waitLimitMs = 10_000;

function account(id: string): NewAccountRow {
  return { id, name: id, plan: 'free', limits: '{}' };
}

async function accountIds(db: Database, prefix: string): Promise<string[]> {
  const rows = await db.selectFrom('accounts').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute();
  return rows.map((row) => row.id);
}

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.db;
  await sql`create table isolation_counter (id text primary key, value integer not null)`.execute(db);
});

afterAll(async () => {
  await testDb?.close();
});

describe('transactions on Postgres', () => {
  it('a transaction that throws keeps none of its writes while another one commits', async () => {
    const aWrote = gate();
    const bWrote = gate();
    let aSawB = false;

    const a = db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account('throw-a1')).execute();
      await trx.insertInto('accounts').values(account('throw-a2')).execute();
      aWrote.open();
      aSawB = await bWrote.wait();
      throw new Error('boom');
    });
    const b = db.transaction().execute(async (trx) => {
      await aWrote.wait();
      await trx.insertInto('accounts').values(account('throw-b1')).execute();
      bWrote.open();
    });

    const [aResult, bResult] = await Promise.allSettled([a, b]);
    expect(aResult.status).toBe('rejected');
    expect((aResult as PromiseRejectedResult).reason).toMatchObject({ message: 'boom' });
    expect(bResult.status).toBe('fulfilled');
    // They overlapped.
    expect(aSawB).toBe(true);
    expect(await accountIds(db, 'throw-')).toEqual(['throw-b1']);
  });

  it('a concurrent reader never sees uncommitted rows', async () => {
    const written = gate();
    const readDone = gate();
    let writerCommitted = false;
    let seenInTransaction: string[] = [];
    let seenOutside: string[] = [];

    const writer = db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('accounts').values(account('dirty-1')).execute();
        written.open();
        await readDone.wait();
      })
      .then(() => {
        writerCommitted = true;
      });
    await written.wait();
    // A reader in its own transaction, and a plain query outside any transaction.
    const reader = db.transaction().execute(async (trx) => {
      seenInTransaction = (await trx.selectFrom('accounts').select('id').where('id', 'like', 'dirty-%').execute()).map(
        (row) => row.id,
      );
    });
    const outside = accountIds(db, 'dirty-').then((ids) => {
      seenOutside = ids;
    });
    await Promise.all([reader, outside]).then(() => readDone.open());
    await writer;

    expect(writerCommitted).toBe(true);
    // Both read while the writer was still open: its row was not visible.
    expect(seenInTransaction).toEqual([]);
    expect(seenOutside).toEqual([]);
    expect(await accountIds(db, 'dirty-')).toEqual(['dirty-1']);
  });

  it('20 concurrent read-modify-write transactions with select ... for update lose no update', async () => {
    await sql`insert into isolation_counter (id, value) values ('hits', 0)`.execute(db);
    let inside = 0;
    let mostInside = 0;

    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction().execute(async (trx) => {
          inside += 1;
          mostInside = Math.max(mostInside, inside);
          try {
            const { rows } = await sql<{ value: number }>`
              select value from isolation_counter where id = 'hits' for update`.execute(trx);
            const value = rows[0]!.value;
            await sleep(2); // widen the window a lost update would need
            await sql`update isolation_counter set value = ${value + 1} where id = 'hits'`.execute(trx);
          } finally {
            inside -= 1;
          }
        }),
      ),
    );

    const { rows } = await sql<{ value: number }>`select value from isolation_counter where id = 'hits'`.execute(db);
    expect(rows[0]!.value).toBe(20);
    expect(mostInside).toBeGreaterThan(1); // several were open at once; the row lock ordered them
  });

  it('a failed statement rolls the whole transaction back, and the database stays usable', async () => {
    const attempt = db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account('failed-1')).execute();
      await trx
        .insertInto('accounts')
        .values({ ...account('failed-2'), plan: 'platinum' as 'free' })
        .execute();
    });
    await expect(attempt).rejects.toMatchObject({ code: '23514' }); // check_violation

    // A caught failure inside the transaction still poisons it: nothing commits.
    const swallowed = db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account('failed-3')).execute();
      await trx
        .insertInto('accounts')
        .values(account('failed-3'))
        .execute()
        .catch(() => undefined);
      await trx.insertInto('accounts').values(account('failed-4')).execute();
    });
    await expect(swallowed).rejects.toMatchObject({ code: '25P02' }); // in_failed_sql_transaction

    expect(await accountIds(db, 'failed-')).toEqual([]);
    await db.insertInto('accounts').values(account('failed-after')).execute();
    expect(await accountIds(db, 'failed-')).toEqual(['failed-after']);
  });
});
