import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../../src/core/errors.ts';
import { toAppError } from '../../src/http/error-handler.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** What Postgres itself answers to values it refuses, mapped as the error handler maps anything that reaches it. */
describe('Postgres refusing a value is a 400 without SQL, never a 500', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database?.close());

  async function refusal(query: ReturnType<typeof sql>): Promise<Error> {
    try {
      await query.execute(database.db);
    } catch (error) {
      return error as Error;
    }
    throw new Error('the query succeeded');
  }

  it.each([
    ['a NUL in text (22021)', sql`select ${'a\u0000b'}::text`, '22021'],
    ['text that is not a number (22P02)', sql`select ${'12x'}::integer`, '22P02'],
    ['a number out of range (22003)', sql`select ${'99999999999'}::integer`, '22003'],
    ['a timestamp that is not one (22007)', sql`select ${'yesterday-ish'}::timestamptz`, '22007'],
  ])('%s', async (_name, query, sqlState) => {
    const error = await refusal(query);
    expect((error as { code?: string }).code).toBe(sqlState);
    const answer = errorBody(toAppError(error));
    expect(answer).toEqual({
      error: { code: 'invalid_request', message: 'a value in the request is not valid text or is out of range', status: 400 },
    });
  });

  it('other database failures stay 500 (a bug or an outage, not the input)', async () => {
    const error = await refusal(sql`select * from no_such_table`);
    expect(toAppError(error).status).toBe(500);
    expect(toAppError(error).message).not.toMatch(/no_such_table|select/i);
  });
});
