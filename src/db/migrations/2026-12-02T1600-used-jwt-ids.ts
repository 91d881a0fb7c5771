import { type Kysely, sql } from 'kysely';

// Single-use signed requests (a key's restrictions.jwt.single_use): each token's jti, remembered until its exp.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table used_jwt_ids (
      key_id text not null,
      jti text not null,
      expires_at timestamptz not null,
      primary key (key_id, jti)
    )`.execute(db);
  await sql`create index used_jwt_ids_expiry_idx on used_jwt_ids (expires_at)`.execute(db);
}
