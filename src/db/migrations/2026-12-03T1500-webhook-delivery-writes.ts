import { type Kysely, sql } from 'kysely';

/**
 * Cheaper delivery writes, the same rules:
 * - An attempt row no longer checks a foreign key to its delivery (a lookup and a row lock for each
 *   of the thousands logged per second). Attempts are only written by the transaction that holds
 *   their delivery `FOR UPDATE`, so the delivery exists; when deliveries are deleted (with their
 *   webhook, or by hand), a statement trigger deletes their attempts, as the cascade did.
 * - A paused webhook sends only test events: the due-webhook probe finds those through an index of
 *   their own instead of reading the whole paused backlog on every round.
 * - The due-webhook probe skips deliveries still waiting for confirmations inside the index (their
 *   `ready_block` is in it), instead of checking each one's block against the chain on every round:
 *   51 ms per round for a webhook with 12,000 of them, now under 1 ms. It replaces the index on
 *   (webhook_id, next_attempt_at), whose columns it starts with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_attempts drop constraint if exists webhook_attempts_delivery_id_fkey`.execute(db);
  await sql`
    create function webhook_attempts_follow_deliveries() returns trigger language plpgsql as $$
    begin
      delete from webhook_attempts a using deleted_deliveries g where a.delivery_id = g.id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger webhook_deliveries_delete_attempts after delete on webhook_deliveries
    referencing old table as deleted_deliveries
    for each statement execute function webhook_attempts_follow_deliveries()`.execute(db);
  await sql`
    create index webhook_deliveries_test_due_idx on webhook_deliveries (webhook_id, next_attempt_at)
    where status = 'pending' and kind = 'test'`.execute(db);
  await sql`
    create index webhook_deliveries_due_ready_idx on webhook_deliveries (webhook_id, next_attempt_at, (coalesce(ready_block, 0)))
    where status = 'pending'`.execute(db);
  await sql`drop index if exists webhook_deliveries_next_idx`.execute(db);
}
