import { type Kysely, sql } from 'kysely';

/**
 * Spam reports (Alchemy's reportSpam): one row per network, contract and reporting account, the last
 * report winning. A report changes no verdict: operators read them (GET /admin/spam/{chain}/{network}/reports)
 * and decide with the lists. Read per network, most reported first, through the primary key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table spam_reports (
      network text not null,
      contract text not null,
      account_id text not null,
      is_spam boolean not null,
      reported_at timestamptz not null default now(),
      primary key (network, contract, account_id)
    )`.execute(db);
}
