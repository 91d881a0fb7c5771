import { describe, expect, it } from 'vitest';
import { assertSupportedServer } from '../../src/db/connect.ts';
import { createTestDatabase } from '../support/database.ts';

describe('the Postgres server version', () => {
  const url = 'postgres://user:secret@db.internal:5433/blockyard';

  it('refuses a server older than 15, naming its version and where it is, never the password', () => {
    expect(() => assertSupportedServer(140011, url)).toThrow(
      'the database at db.internal:5433/blockyard is PostgreSQL 14.11; Blockyard needs 15 or newer',
    );
    expect(() => assertSupportedServer(Number.NaN, url)).toThrow(/PostgreSQL unknown/);
    let message = '';
    try {
      assertSupportedServer(130000, url);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('PostgreSQL 13.0');
    expect(message).not.toContain('secret');
  });

  it('takes 15 and newer, and the server this run uses', async () => {
    expect(() => assertSupportedServer(150000, url)).not.toThrow();
    expect(() => assertSupportedServer(180004, url)).not.toThrow();
    const database = await createTestDatabase({ migrate: false });
    await database.close();
  });
});
