import { type Kysely, sql } from 'kysely';

/**
 * Tells a previous release's webhook matcher apart from this one, so that an upgrade done in the wrong
 * order is refused instead of delivering too much. A matcher of the release before webhook addresses
 * got their own table reads only `config.addresses`: a webhook whose list is in the table looks to it
 * like a webhook with no address filter, and it would be sent every event of its type. This release's
 * matcher counts its rounds in `matcher_round` whenever it moves the cursor; the previous release's
 * moves only `seq`, and the trigger notes when (`previous_release_moved_at`). API nodes refuse to
 * write address lists to the table while that is recent (src/webhooks/previous-release-guard.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_matcher_cursor add column matcher_round int8 not null default 0`.execute(db);
  await sql`alter table webhook_matcher_cursor add column previous_release_moved_at timestamptz`.execute(db);
  await sql`
    create function webhook_matcher_cursor_note_previous_release() returns trigger language plpgsql as $$
    begin
      if new.matcher_round = old.matcher_round and new.seq is distinct from old.seq then
        new.previous_release_moved_at := now();
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger webhook_matcher_cursor_previous_release before update on webhook_matcher_cursor
    for each row execute function webhook_matcher_cursor_note_previous_release()`.execute(db);
}
