import { readdir } from 'node:fs/promises';
import { type Kysely, type Migration, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Migrations only add (docs/operations.md "Upgrades"): during a rolling upgrade the previous release
 * runs against the schema the new one migrated, so no migration may take away or change what it
 * reads and writes. Each migration runs alone on a real Postgres and the catalog is compared before
 * and after it: no table or column removed or renamed (a rename is a removal plus an addition), no
 * column's type changed (except a widening the old code cannot tell: a longer varchar, varchar to
 * text, a wider integer), no existing column made NOT NULL, and no NOT NULL column added to an
 * existing table without a default (the old code's inserts do not name it). Removing something is
 * the contract step of a later release, after every node runs code that no longer uses it.
 */

interface Column {
  readonly type: string;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
}

/** Ordinary and partitioned tables of the public schema, each with its columns. */
async function catalog(db: Kysely<unknown>): Promise<Map<string, Map<string, Column>>> {
  const { rows } = await sql<{ table: string; column: string; type: string; not_null: boolean; has_default: boolean }>`
    select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
           a.attnotnull as not_null, a.atthasdef as has_default
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname not like 'kysely_%'`.execute(db);
  const tables = new Map<string, Map<string, Column>>();
  for (const row of rows) {
    const columns = tables.get(row.table) ?? new Map<string, Column>();
    columns.set(row.column, { type: row.type, notNull: row.not_null, hasDefault: row.has_default });
    tables.set(row.table, columns);
  }
  return tables;
}

const integerWidth: Record<string, number> = { smallint: 2, integer: 4, bigint: 8 };

/** Whether `after` holds every value `before` does and reads back the same (format_type spellings). */
function isWidening(before: string, after: string): boolean {
  if (before === after) return true;
  const varchar = /^character varying(?:\((\d+)\))?$/;
  const from = varchar.exec(before);
  if (from && after === 'text') return true;
  const to = varchar.exec(after);
  if (from && to) return to[1] === undefined || (from[1] !== undefined && Number(to[1]) >= Number(from[1]));
  const [fromWidth, toWidth] = [integerWidth[before], integerWidth[after]];
  return fromWidth !== undefined && toWidth !== undefined && toWidth >= fromWidth;
}

/** What one migration took away or narrowed, in words (empty: it only added). */
function narrowings(before: Map<string, Map<string, Column>>, after: Map<string, Map<string, Column>>): string[] {
  const found: string[] = [];
  for (const [table, columns] of before) {
    const now = after.get(table);
    if (!now) {
      found.push(`table ${table} dropped or renamed`);
      continue;
    }
    for (const [name, column] of columns) {
      const next = now.get(name);
      if (!next) found.push(`column ${table}.${name} dropped or renamed`);
      else if (!isWidening(column.type, next.type))
        found.push(`column ${table}.${name} changed from ${column.type} to ${next.type}`);
      else if (!column.notNull && next.notNull) found.push(`column ${table}.${name} made NOT NULL`);
    }
    for (const [name, column] of now)
      if (!columns.has(name) && column.notNull && !column.hasDefault)
        found.push(`column ${table}.${name} added NOT NULL without a default (the old code's inserts lack it)`);
  }
  return found;
}

const migrationsDir = new URL('../../src/db/migrations/', import.meta.url);

describe('migrations only add (expand now, contract in a later release)', () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase({ migrate: false });
  });

  afterAll(async () => {
    await testDb?.close();
  });

  it('every file in src/db/migrations is registered, in order', async () => {
    const files = (await readdir(migrationsDir)).filter((file) => file.endsWith('.ts')).map((file) => file.replace(/\.ts$/, ''));
    expect(files.sort()).toEqual([...migrationNames]);
  });

  it('no migration drops, renames or narrows a table or column of an earlier one (the catalog before and after each)', async () => {
    const db = testDb.db as unknown as Kysely<unknown>;
    const found: string[] = [];
    let before = await catalog(db);
    for (const name of migrationNames) {
      const migration = (await import(new URL(`${name}.ts`, migrationsDir).href)) as Migration;
      await db.transaction().execute((trx) => migration.up(trx));
      const after = await catalog(db);
      found.push(...narrowings(before, after).map((change) => `${name}: ${change}`));
      before = after;
    }
    expect(before.size).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });

  it('the check sees what a contract step would do', () => {
    const column = (type: string, notNull = false, hasDefault = false) => ({ type, notNull, hasDefault });
    const before = new Map([
      [
        'keys',
        new Map([
          ['id', column('bigint', true)],
          ['name', column('character varying(64)')],
          ['note', column('text')],
        ]),
      ],
      ['old', new Map([['id', column('bigint', true)]])],
    ]);
    const after = new Map([
      [
        'keys',
        new Map([
          ['id', column('integer', true)],
          ['name', column('text', true)],
          ['label', column('text', true)],
          ['flag', column('boolean', true, true)],
        ]),
      ],
    ]);
    expect(narrowings(before, after).sort()).toEqual([
      'column keys.id changed from bigint to integer',
      "column keys.label added NOT NULL without a default (the old code's inserts lack it)",
      'column keys.name made NOT NULL',
      'column keys.note dropped or renamed',
      'table old dropped or renamed',
    ]);
    expect(isWidening('character varying(64)', 'character varying(128)')).toBe(true);
    expect(isWidening('character varying(64)', 'character varying(32)')).toBe(false);
    expect(isWidening('numeric(78,0)', 'numeric(40,0)')).toBe(false);
  });
});
