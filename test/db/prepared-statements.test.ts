import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedComment, statementNameOf } from '../../src/db/prepared-statements.ts';
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

  it('names only texts that start with the mark', () => {
    expect(statementNameOf('select 1')).toBeUndefined();
    expect(statementNameOf(`select 1 ${preparedComment('late')}`)).toBeUndefined();
    expect(statementNameOf(`${preparedComment('a')}select 1`)).toBe(statementNameOf(`${preparedComment('a')}select 1`));
    expect(() => preparedComment('Not Snake')).toThrow(/snake_case/);
  });
});
