import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

// PGlite with a data directory, whatever backend the rest of the run uses.
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

it('PGlite keeps its data in the directory across close and reopen', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'bk-pglite-'));
  dirs.push(parent);
  const dir = join(parent, 'db'); // not there yet: openDatabase creates it

  const first = await openDatabase({ pgliteDir: dir });
  expect(first.kind).toBe('pglite');
  expect((await migrateToLatest(first.db)).length).toBeGreaterThan(0);
  await first.db
    .insertInto('accounts')
    .values({ id: 'acct-kept', name: 'Kept', plan: 'growth', limits: JSON.stringify({ rps: 50, monthly: null }) })
    .execute();
  await first.db
    .insertInto('api_keys')
    .values({
      id: 'key-kept',
      account_id: 'acct-kept',
      name: 'ci',
      environment: 'test',
      prefix: 'svc_test_abc',
      key_hash: 'a'.repeat(64),
      scopes: JSON.stringify(['rpc:read']),
    })
    .execute();
  await first.close();
  expect((await readdir(dir)).length).toBeGreaterThan(0);

  const second = await openDatabase({ pgliteDir: dir });
  try {
    expect(await migrateToLatest(second.db)).toEqual([]);
    const accountRow = await second.db.selectFrom('accounts').selectAll().where('id', '=', 'acct-kept').executeTakeFirstOrThrow();
    expect(accountRow).toMatchObject({ name: 'Kept', plan: 'growth', limits: { rps: 50, monthly: null } });
    expect(accountRow.created_at).toBeInstanceOf(Date);
    const keyRow = await second.db.selectFrom('api_keys').selectAll().where('id', '=', 'key-kept').executeTakeFirstOrThrow();
    expect(keyRow).toMatchObject({ account_id: 'acct-kept', scopes: ['rpc:read'], revoked_at: null });
  } finally {
    await second.close();
  }
});
