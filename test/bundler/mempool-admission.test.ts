import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Admission, admitToMempool, type NewMempoolRow } from '../../src/bundler/mempool-admission.ts';
import type { Tables } from '../../src/db/tables.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const entryPoint = '0x0000000071727de22e5e9d8baf0edac6f37da032';
const factory = '0xfac0000000000000000000000000000000000001';
const paymaster = '0xa000000000000000000000000000000000000002';

/** Waits (at most 10 s) until `count` sessions wait on an advisory lock. */
async function waitForLockWaiters(db: Kysely<Tables>, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_locks
      where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
      db,
    );
    if (rows[0]!.waiting >= count) return;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.waiting} of ${count} sends waited on the sender's lock`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let sequence = 0;
function newRow(sender: string, nonce: number, extra: Partial<NewMempoolRow> = {}): NewMempoolRow {
  sequence += 1;
  return {
    hash: `0x${sequence.toString(16).padStart(64, '0')}`,
    network: 'devnet',
    entry_point: entryPoint,
    entry_point_version: '0.7',
    sender,
    nonce: String(nonce),
    factory: null,
    paymaster: null,
    op: { sender, nonce: `0x${nonce.toString(16)}` },
    max_fee_per_gas: '2000000000',
    max_priority_fee_per_gas: '1000000000',
    status: 'pending',
    code_hashes: { [sender]: '0x01' },
    storage_owners: ['0xb000000000000000000000000000000000000003'],
    ...extra,
  };
}

function admission(row: NewMempoolRow, extra: Partial<Admission> = {}): Admission {
  return { row, seenEntities: [], senderLimit: 4, ...extra };
}

/** The one-call admission (a database function) against a real Postgres: what it writes and what it refuses. */
describe('mempool admission', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  const rowOf = (hash: string) =>
    database.db.selectFrom('user_operations').selectAll().where('hash', '=', hash).executeTakeFirstOrThrow();
  const seenOf = async (address: string) =>
    (
      await database.db
        .selectFrom('bundler_reputation')
        .select('ops_seen')
        .where('network', '=', 'devnet')
        .where('address', '=', address)
        .executeTakeFirst()
    )?.ops_seen;

  it('writes every member of the row and counts the entities as seen', async () => {
    const row = newRow('0x1000000000000000000000000000000000000001', 0, { factory, paymaster });
    expect(await admitToMempool(database.db, admission(row, { seenEntities: [factory, paymaster] }))).toBeUndefined();
    const written = await rowOf(row.hash);
    expect(written).toMatchObject({
      network: 'devnet',
      entry_point: entryPoint,
      entry_point_version: '0.7',
      sender: row.sender,
      factory,
      paymaster,
      op: row.op,
      status: 'pending',
      code_hashes: row.code_hashes,
      storage_owners: row.storage_owners,
      reason: null,
    });
    expect(String(written.nonce)).toBe('0');
    expect(String(written.max_fee_per_gas)).toBe('2000000000');
    expect(String(written.max_priority_fee_per_gas)).toBe('1000000000');
    expect(Number(await seenOf(factory))).toBe(1);
    expect(Number(await seenOf(paymaster))).toBe(1);
  });

  it('counts a sender’s concurrent sends one after another, each seeing the ones before: the limit holds', async () => {
    const sender = '0x2000000000000000000000000000000000000002';
    const rows = Array.from({ length: 8 }, (_, nonce) => newRow(sender, nonce));
    // The sender's lock is held elsewhere until all eight wait on it, so each counts only after the
    // ones before it committed (counting in the statement that waited would see none of them).
    const outcomes = await database.db.connection().execute(async (holder) => {
      await sql`begin`.execute(holder);
      await sql`select pg_advisory_xact_lock(hashtext('blockyard-bundler-sender'), hashtext(${`devnet:${entryPoint}:${sender}`}))`.execute(
        holder,
      );
      const sends = Promise.all(rows.map((row) => admitToMempool(database.db, admission(row))));
      await waitForLockWaiters(holder, rows.length);
      await sql`commit`.execute(holder);
      return sends;
    });
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(4);
    const refusals = outcomes.filter((outcome) => outcome !== undefined);
    expect(refusals).toHaveLength(4);
    for (const refusal of refusals) expect(refusal).toEqual({ kind: 'sender-limit', pending: 4 });
    const { count } = await database.db
      .selectFrom('user_operations')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('sender', '=', sender)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(4);
  });

  it('refuses an op whose sender is another pending op’s factory (STO-040), only when the rules were traced', async () => {
    const deployer = '0x3000000000000000000000000000000000000003';
    await admitToMempool(database.db, admission(newRow('0x3100000000000000000000000000000000000031', 0, { factory: deployer })));
    const row = newRow(deployer, 0);
    expect(await admitToMempool(database.db, admission(row, { conflictsWith: [] }))).toEqual({
      kind: 'conflict',
      conflict: { sender: '0x3100000000000000000000000000000000000031', factory: deployer, paymaster: null },
    });
    expect(await admitToMempool(database.db, admission(row))).toBeUndefined();
  });

  it('answers already known for a live hash, and lets a failed one take its row over as new', async () => {
    const row = newRow('0x4000000000000000000000000000000000000004', 0);
    expect(await admitToMempool(database.db, admission(row))).toBeUndefined();
    expect(await admitToMempool(database.db, admission(row))).toEqual({ kind: 'already-known' });
    await sql`update user_operations set status = 'failed', reason = 'dropped', tx_hash = '0xdead' where hash = ${row.hash}`.execute(
      database.db,
    );
    expect(await admitToMempool(database.db, admission(row))).toBeUndefined();
    expect(await rowOf(row.hash)).toMatchObject({ status: 'pending', reason: null, tx_hash: null });
  });

  it('marks the replaced op and moves its entities’ seen count to the new one; a refused replacement changes nothing', async () => {
    const sender = '0x5000000000000000000000000000000000000005';
    const sponsor = '0xa500000000000000000000000000000000000005';
    const first = newRow(sender, 0, { paymaster: sponsor });
    await admitToMempool(database.db, admission(first, { seenEntities: [sponsor] }));
    expect(Number(await seenOf(sponsor))).toBe(1);

    // Another sender's pending op names this sender as its factory: with the rules traced, the replacement is refused.
    await admitToMempool(database.db, admission(newRow('0x5100000000000000000000000000000000000051', 0, { factory: sender })));
    const refused = newRow(sender, 0, { paymaster: sponsor, max_fee_per_gas: '3000000000' });
    expect(
      await admitToMempool(
        database.db,
        admission(refused, { replacing: first.hash, conflictsWith: [], seenEntities: [sponsor] }),
      ),
    ).toMatchObject({ kind: 'conflict' });
    expect(await rowOf(first.hash)).toMatchObject({ status: 'pending', reason: null });
    expect(Number(await seenOf(sponsor))).toBe(1);

    const replacement = newRow(sender, 0, { paymaster: sponsor, max_fee_per_gas: '3000000000' });
    expect(
      await admitToMempool(
        database.db,
        admission(replacement, { replacing: first.hash, seenEntities: [sponsor], senderLimit: 1 }),
      ),
    ).toBeUndefined();
    expect(await rowOf(first.hash)).toMatchObject({ status: 'replaced', reason: `replaced by ${replacement.hash}` });
    expect(await rowOf(replacement.hash)).toMatchObject({ status: 'pending' });
    expect(Number(await seenOf(sponsor))).toBe(1);
  });
});
