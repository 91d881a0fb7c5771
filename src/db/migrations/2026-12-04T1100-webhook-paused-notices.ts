import { type Kysely, sql } from 'kysely';

/**
 * The paused-webhook notices still to be sent, written in the transaction that pauses the webhook: a
 * process that dies between the pause and the mail leaves the row, and the next webhook worker sends it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_paused_notices (
      id bigserial primary key,
      webhook_id text not null references webhooks (id) on delete cascade,
      account_id text not null,
      notice jsonb not null,
      created_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      attempts integer not null default 0,
      last_error text,
      sent_at timestamptz
    )`.execute(db);
  await sql`create index webhook_paused_notices_due on webhook_paused_notices (next_attempt_at) where sent_at is null`.execute(
    db,
  );
}
