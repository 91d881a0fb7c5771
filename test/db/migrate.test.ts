import { readdir } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connect.ts';
import { migrateToLatest, pendingMigrations } from '../../src/db/migrate.ts';
import type { NewAccountRow, NewApiKeyRow } from '../../src/db/tables/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const MIGRATION_NAME = /^\d{4}-\d{2}-\d{2}T\d{4}-[a-z0-9]+(-[a-z0-9]+)*$/;

let testDb: TestDatabase;
let db: Database;
let firstRun: string[];

beforeAll(async () => {
  testDb = await createTestDatabase({ migrate: false });
  db = testDb.db;
  firstRun = await migrateToLatest(db);
});

afterAll(async () => {
  await testDb?.close();
});

/** Tables, columns, constraints and indexes of the public schema, as comparable text. */
async function schemaSnapshot(): Promise<string[]> {
  const { rows: columns } = await sql<{ line: string }>`
    select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
    from information_schema.columns where table_schema = 'public'`.execute(db);
  const { rows: constraints } = await sql<{ line: string }>`
    select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as line
    from pg_constraint where connamespace = 'public'::regnamespace`.execute(db);
  const { rows: indexes } = await sql<{ line: string }>`
    select indexdef as line from pg_indexes where schemaname = 'public'`.execute(db);
  return [...columns, ...constraints, ...indexes].map((row) => row.line).sort();
}

async function appliedMigrations(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(db);
  return rows.map((row) => row.name);
}

function account(id: string, plan: string = 'free'): NewAccountRow {
  return { id, name: id, plan: plan as NewAccountRow['plan'], limits: '{}' };
}

function apiKey(id: string, accountId: string, keyHash: string): NewApiKeyRow {
  return {
    id,
    account_id: accountId,
    name: id,
    environment: 'live',
    prefix: 'svc_live_xyz',
    key_hash: keyHash,
    scopes: '["rpc:read"]',
  };
}

describe('migrations', () => {
  it('apply on a fresh database, in the order of their dated names', async () => {
    expect(firstRun.length).toBeGreaterThan(0);
    const applied = await appliedMigrations();
    expect(applied).toEqual(firstRun);
    for (const name of applied) expect(name).toMatch(MIGRATION_NAME);
    expect([...applied].sort()).toEqual(applied);
    expect(new Set(applied).size).toBe(applied.length);
  });

  it('include every file in src/db/migrations', async () => {
    const files = (await readdir(new URL('../../src/db/migrations/', import.meta.url)))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(files).toEqual(await appliedMigrations());
  });

  it('running them again applies nothing and changes nothing', async () => {
    const before = await schemaSnapshot();
    const applied = await appliedMigrations();
    expect(await migrateToLatest(db)).toEqual([]);
    expect(await schemaSnapshot()).toEqual(before);
    expect(await appliedMigrations()).toEqual(applied);
  });

  it('a migration recorded under its former name counts as applied: nothing runs again, the record takes the new name', async () => {
    const before = await schemaSnapshot();
    const applied = await appliedMigrations();
    // As the build that dated the admission function 18:00 recorded it.
    await sql`update kysely_migration set name = '2026-12-05T1800-mempool-admission-function'
      where name = '2026-12-05T1700-mempool-admission-function'`.execute(db);
    expect(await pendingMigrations(db)).toEqual([]);
    expect(await migrateToLatest(db)).toEqual([]);
    expect(await appliedMigrations()).toEqual(applied);
    expect(await schemaSnapshot()).toEqual(before);
  });

  it('create the tables with their constraints', async () => {
    const tables = await db.introspection.getTables();
    const names = tables.map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(['accounts', 'api_keys']));

    await db.insertInto('accounts').values(account('acct-1')).execute();
    await expect(db.insertInto('accounts').values(account('acct-2', 'platinum')).execute()).rejects.toMatchObject({
      code: '23514', // check_violation
    });
    await expect(db.insertInto('accounts').values(account('acct-1')).execute()).rejects.toMatchObject({
      code: '23505', // unique_violation (primary key)
    });

    await db
      .insertInto('api_keys')
      .values(apiKey('key-1', 'acct-1', 'f'.repeat(64)))
      .execute();
    await expect(
      db
        .insertInto('api_keys')
        .values(apiKey('key-2', 'acct-1', 'f'.repeat(64)))
        .execute(),
    ).rejects.toMatchObject({
      code: '23505', // duplicate key_hash
    });
    await expect(
      db
        .insertInto('api_keys')
        .values(apiKey('key-3', 'acct-missing', 'e'.repeat(64)))
        .execute(),
    ).rejects.toMatchObject(
      { code: '23503' }, // foreign_key_violation
    );
    await expect(
      db
        .insertInto('api_keys')
        .values({ ...apiKey('key-4', 'acct-1', 'd'.repeat(64)), environment: 'staging' as 'live' })
        .execute(),
    ).rejects.toMatchObject({ code: '23514' });

    // Defaults, and the cascade from an account to its keys.
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', 'acct-1').executeTakeFirstOrThrow();
    expect(row.limits).toEqual({});
    expect(row.created_at).toBeInstanceOf(Date);
    await db.deleteFrom('accounts').where('id', '=', 'acct-1').execute();
    expect(await db.selectFrom('api_keys').select('id').execute()).toEqual([]);
  });
});
