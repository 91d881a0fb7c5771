import { type Kysely, sql } from 'kysely';

// ERC-7562 STO-041: the contracts (other than its sender and the EntryPoint) whose storage the op's
// validation touched, lower-case, as a JSON array; null when the rules were not traced. A bundle never
// carries an op beside another whose sender is one of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table user_operations add column storage_owners jsonb`.execute(db);
}
