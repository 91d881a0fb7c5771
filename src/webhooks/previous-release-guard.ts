import { type Kysely, sql } from 'kysely';
import { AppError } from '../core/errors.ts';
import type { Tables } from '../db/tables.ts';

/** How long after a previous release's matcher last moved the cursor address lists stay refused. */
const previousReleaseGraceS = 120;

/**
 * Refuses to write a webhook's address list to `webhook_addresses` while a matcher of the release
 * before that table still runs (it moved the matcher cursor in the last two minutes): it reads only
 * `config.addresses`, so it would take such a webhook for one without an address filter and send it
 * every event of its type. The documented order (the workers first, then the API nodes) never meets
 * this; an upgrade done the other way gets a 503 naming it instead of over-delivering.
 */
export async function assertNoPreviousReleaseMatcher(trx: Kysely<Tables>): Promise<void> {
  const { rows } = await sql<{ recent: boolean }>`
    select previous_release_moved_at > now() - make_interval(secs => ${previousReleaseGraceS}) as recent
    from webhook_matcher_cursor where name = 'chain_events'`.execute(trx);
  if (!rows[0]?.recent) return;
  throw new AppError(
    'service_unavailable',
    'a webhook worker of the previous release is still matching events, and it cannot read address lists kept ' +
      'in their own table: upgrade the webhook workers before the API nodes (docs/operations.md#rolling-upgrade), ' +
      `then retry; address lists are accepted again ${previousReleaseGraceS} s after its last round`,
    { headers: { 'retry-after': '30' } },
  );
}
