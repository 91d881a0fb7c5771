import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // ERC-7562 COD-010: the code hash of every address whose code the op's validation ran, as first validated
  // ({address: hash}, lower-case); null when the rules were not checked.
  await sql`alter table user_operations add column code_hashes jsonb`.execute(db);
}
