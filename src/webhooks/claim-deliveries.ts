import { type Kysely, type RawBuilder, sql } from 'kysely';
import { preparedComment } from '../db/prepared-statements.ts';
import type { Tables } from '../db/tables.ts';

/**
 * A delivery (`d`) that waits for confirmations is due once the index holds its `ready_block` (or, with
 * `ready_final`, counts it final: the index's saved final block, which follows the network's finality
 * model) and its block is still on the chain. The indexer writes a reorg's removal events in the
 * transaction that drops the blocks, but the matcher cancels the deliveries later, after the new branch
 * may already be as high as `ready_block`: without the second test a worker could send an event from a
 * dropped block.
 */
const confirmationsReached = sql`(d.ready_block is null
  or (d.ready_block <= (case when d.ready_final
        then (select p.final_block from index_progress p where p.network = d.network)
        else (select max(b.number) from index_blocks b where b.network = d.network) end)
    and not exists (
      select 1 from webhook_events de join chain_events r on r.removes_seq = de.chain_seq
      where de.id = d.event_id)))`;

/**
 * The highest block any delivery of `network` can be waiting for and be ready: the index's head or its
 * final block, whichever is higher (0 before the index has any). A delivery whose `ready_block` is
 * above it is not ready, so `coalesce(ready_block, 0) <= bound` is a cheap test implied by
 * `confirmationsReached`: asked first, inside `webhook_deliveries_due_ready_idx`, and once per
 * webhook, not once per delivery.
 */
const readyBound = (network: RawBuilder<unknown>) => sql`(select coalesce(greatest(max(b.number),
    (select p.final_block from index_progress p where p.network = ${network})), 0)
  from index_blocks b where b.network = ${network})`;

/** A pending delivery taken by one worker for this round, with its event. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  kind: string;
  attempts: number;
  event_type: string;
  data: Record<string, unknown>;
  removed: boolean;
  removes_event_id: string | null;
  test: boolean;
  event_created_at: Date;
  network: string;
}

/** The webhook being served, with what its deliveries need: where, how, signed with what, under which plan. */
export interface ServedWebhook {
  id: string;
  account_id: string;
  url: string;
  status: 'active' | 'paused' | 'disabled';
  payload_format: 'snake_case' | 'camelCase';
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  plan: 'free' | 'growth' | 'enterprise';
  limits: Record<string, number | null>;
}

/**
 * Takes the webhook's transaction-scoped advisory lock, so its first attempts go out in chain order
 * whichever process serves it, and reads the webhook with its account's plan, in one round trip.
 * Answers the database's clock with the webhook when the lock is ours; `busy` when another worker
 * holds it; `gone` when the webhook is no more. Schedules, signature timestamps and day windows
 * compare with times other processes wrote, so they come from one clock, not this host's.
 */
export async function lockServedWebhook(
  trx: Kysely<Tables>,
  webhookId: string,
): Promise<{ webhook: ServedWebhook; now: () => Date } | 'busy' | 'gone'> {
  const { rows } = await sql<
    ServedWebhook & { locked: boolean; db_ms: number }
  >`${sql.raw(preparedComment('webhook_lock_served'))}
    select l.locked, l.db_ms, w.id, w.account_id, w.url, w.status, w.payload_format, w.secret_ciphertext,
           w.previous_secret_ciphertext, w.previous_secret_expires_at, a.plan, a.limits
    from (select pg_try_advisory_xact_lock(hashtext('webhook:' || ${webhookId}::text)) as locked,
                 (extract(epoch from clock_timestamp()) * 1000)::float8 as db_ms) l
    left join (webhooks w join accounts a on a.id = w.account_id) on l.locked and w.id = ${webhookId}`.execute(trx);
  const row = rows[0];
  if (!row?.locked) return 'busy';
  if (row.id === null) return 'gone';
  const skewMs = row.db_ms - Date.now();
  const { locked: _locked, db_ms: _dbMs, ...webhook } = row;
  return { webhook, now: () => new Date(Date.now() + skewMs) };
}

/**
 * Claims up to `limit` of the webhook's due deliveries in chain order (`FOR UPDATE SKIP LOCKED`): of a
 * paused webhook only test events, and only once their block is as deep as they wait for.
 */
export async function claimDueDeliveries(
  trx: Kysely<Tables>,
  webhook: Pick<ServedWebhook, 'id' | 'status'>,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimedDelivery>`${sql.raw(preparedComment('webhook_claim_due'))}
    select d.id, d.event_id, d.kind, d.attempts, d.network, e.event_type, e.data, e.removed,
           e.removes_event_id, e.test, e.created_at as event_created_at
    from webhook_deliveries d
    join webhook_events e on e.id = d.event_id
    where d.webhook_id = ${webhook.id}
      and d.status = 'pending'
      and d.next_attempt_at <= now()
      and (${webhook.status} = 'active' or d.kind = 'test')
      and coalesce(d.ready_block, 0) <= ${readyBound(sql`(select w.network from webhooks w where w.id = ${webhook.id})`)}
      and ${confirmationsReached}
    order by d.position
    limit ${limit}
    for update of d skip locked`.execute(trx);
  return rows;
}

/**
 * Webhooks with a delivery due now, at most `limit`. Per webhook, an index probe that stops at its
 * first due delivery and passes over those still waiting for confirmations inside the index; of a
 * paused webhook, its first due test event, from the index of those alone (not a walk through its
 * backlog). Random order, so no webhook waits behind others that always have something due.
 */
export async function findDueWebhooks(db: Kysely<Tables>, limit: number): Promise<string[]> {
  const { rows } = await sql<{ webhook_id: string }>`${sql.raw(preparedComment('webhook_find_due'))}
    select w.id as webhook_id
    from webhooks w
    where (w.status = 'active' and exists (
        select 1 from webhook_deliveries d
        where d.webhook_id = w.id
          and d.status = 'pending'
          and d.next_attempt_at <= now()
          and coalesce(d.ready_block, 0) <= ${readyBound(sql.ref('w.network'))}
          and ${confirmationsReached}))
      or (w.status = 'paused' and exists (
        select 1 from webhook_deliveries d
        where d.webhook_id = w.id
          and d.status = 'pending'
          and d.kind = 'test'
          and d.next_attempt_at <= now()
          and ${confirmationsReached}))
    order by random()
    limit ${limit}`.execute(db);
  return rows.map((row) => row.webhook_id);
}
