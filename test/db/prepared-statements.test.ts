import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxTextsPerName, preparedComment, statementNameOf } from '../../src/db/prepared-statements.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('prepared statements', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('prepares marked statements once per connection, by a name that follows the text, and leaves the others unnamed', async () => {
    const marked = preparedComment('probe');
    const seen = await database.db.transaction().execute(async (trx) => {
      for (const value of [1, 2, 3]) {
        const { rows } = await sql<{ doubled: number }>`${sql.raw(marked)} select ${value}::int * 2 as doubled`.execute(trx);
        expect(rows[0]?.doubled).toBe(value * 2);
      }
      await sql`${sql.raw(marked)} select ${'x'}::text as other`.execute(trx);
      await sql`select ${4}::int as plain`.execute(trx);
      const { rows } = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements order by statement`.execute(trx);
      return rows;
    });
    expect(seen.map((row) => row.statement)).toEqual([
      `${marked} select $1::int * 2 as doubled`,
      `${marked} select $1::text as other`,
    ]);
    expect(seen.every((row) => /^probe_[0-9a-f]{12}$/.test(row.name))).toBe(true);
    expect(seen[0]!.name).not.toBe(seen[1]!.name);
  });

  it('prepares at most a bounded number of texts of one mark; the texts past it still run, unnamed', async () => {
    const shaped = preparedComment('shape_probe');
    const other = preparedComment('other_probe');
    const texts = maxTextsPerName + 6;
    const seen = await database.db.transaction().execute(async (trx) => {
      for (let shape = 0; shape < texts; shape++) {
        // One text per shape, as a query built from a request's filters has.
        const { rows } = await sql<{
          sum: number;
        }>`${sql.raw(shaped)} select ${shape}::int + ${sql.raw(String(shape))} as sum`.execute(trx);
        expect(rows[0]?.sum).toBe(2 * shape);
      }
      await sql`${sql.raw(other)} select 1 as one`.execute(trx);
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(trx);
      return rows.map((row) => row.name);
    });
    expect(seen.filter((name) => name.startsWith('shape_probe_'))).toHaveLength(maxTextsPerName);
    expect(seen.filter((name) => name.startsWith('other_probe_'))).toHaveLength(1);
  });

  it('names only texts that start with the mark', () => {
    expect(statementNameOf('select 1')).toBeUndefined();
    expect(statementNameOf(`select 1 ${preparedComment('late')}`)).toBeUndefined();
    expect(statementNameOf(`${preparedComment('a')}select 1`)).toBe(statementNameOf(`${preparedComment('a')}select 1`));
    expect(() => preparedComment('Not Snake')).toThrow(/snake_case/);
  });
});
