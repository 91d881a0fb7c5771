import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../src/db/array-literal.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('array literals for many-row parameters', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  async function readBack(values: readonly (string | null)[]): Promise<(string | null)[]> {
    const { rows } = await sql<{ value: string | null }>`
      select value from unnest(${arrayLiteral(values)}::text[]) with ordinality as u(value, n) order by n`.execute(database.db);
    return rows.map((row) => row.value);
  }

  it('gives Postgres back every text element as written, nulls as nulls, the word NULL as a word', async () => {
    const tricky = [
      '0xabc',
      '',
      ' ',
      ' lead',
      'trail ',
      'a,b',
      '{x}',
      '"q"',
      'back\\slash',
      'NULL',
      'null',
      'é漢',
      '\n',
      'a b',
      null,
    ];
    expect(await readBack(tricky)).toEqual(tricky);
  });

  it('round-trips any strings Postgres can hold', async () => {
    const noNul = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((text) => !text.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(noNul, { nil: null }), { maxLength: 8 }), async (values) => {
        expect(await readBack(values)).toEqual(values);
      }),
      { numRuns: 60 },
    );
  });

  it('casts numbers, big integers and dates as the column types read them', async () => {
    const { rows } = await sql<{ n: string; big: string; at: Date }>`
      select * from unnest(${arrayLiteral([1, -2])}::int8[], ${arrayLiteral([10n ** 40n, 0n])}::numeric[],
        ${arrayLiteral(['2026-12-06T01:00:00.000Z', '1970-01-01T00:00:00.000Z'])}::timestamptz[]) as u(n, big, at)`.execute(
      database.db,
    );
    expect(rows.map((row) => [String(row.n), row.big, new Date(row.at).toISOString()])).toEqual([
      ['1', (10n ** 40n).toString(), '2026-12-06T01:00:00.000Z'],
      ['-2', '0', '1970-01-01T00:00:00.000Z'],
    ]);
  });
});
