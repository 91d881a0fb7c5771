import { type Kysely, sql } from 'kysely';

/**
 * Spam classification of token and NFT contracts (docs/spam.md). `contract_spam` keeps what the
 * heuristics found for a contract (reason codes, when, from how many indexed transfers); the verdict
 * adds the operator's lists at read time, so a list change needs no rewrite. `spam_lists` holds the
 * allow and deny entries set through the admin API (the settings' lists live in the config). Both are
 * read by primary key only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table contract_spam (
      network text not null,
      contract text not null,
      kind text not null,
      reasons text[] not null,
      sampled_transfers integer not null,
      classified_at timestamptz not null,
      primary key (network, contract)
    )`.execute(db);
  await sql`
    create table spam_lists (
      network text not null,
      contract text not null,
      list text not null check (list in ('allow', 'deny')),
      note text,
      created_at timestamptz not null default now(),
      primary key (network, contract)
    )`.execute(db);
}
