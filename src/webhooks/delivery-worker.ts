import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { WebhooksConfig } from '../config/webhook-settings.ts';
import { type ListenConnection, startListenConnection } from '../db/listen-connection.ts';
import type { Tables } from '../db/tables.ts';
import { type Plan, resolveLimits } from '../limits/plans.ts';
import { registerDatabaseGauge } from '../observability/database-gauge.ts';
import { parseEventType, variantBName } from './event-types.ts';
import { deliveriesChannel } from './outbox.ts';
import { renderPayload } from './payloads.ts';
import { nextAttemptDelayMs, nextUtcDay, parseRetryAfter } from './retry-schedule.ts';
import type { SecretBox } from './secrets.ts';
import type { DeliverySender, SendResult } from './send-delivery.ts';
import { signatureHeaders } from './signing.ts';
import { openWebhookSecrets, unopenableSecretHoldMs } from './webhook-secrets.ts';

/** Deliveries one claim takes from one webhook at most. */
const batchSize = 200;
const pollMs = 250;

export interface PausedNotice {
  readonly webhookId: string;
  readonly accountId: string;
  readonly url: string;
  readonly attempts: number;
  readonly lastError: string;
}

export interface DeliveryWorkers {
  /** Look for due deliveries now (something was just queued in this process). */
  poke(): void;
  /** Resolves once no delivery is due (tests). */
  close(): Promise<void>;
}

interface ClaimedDelivery {
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

interface WorkerMetrics {
  attempts: Counter<'outcome'>;
}

function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const existing = registry.getSingleMetric('blockyard_webhook_attempts_total') as Counter<'outcome'> | undefined;
  return {
    attempts:
      existing ??
      new Counter({
        name: 'blockyard_webhook_attempts_total',
        help: 'Webhook delivery attempts, by outcome (delivered, failed, retrying, gone)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  };
}

/**
 * The delivery engine of one process. Each due webhook is served in its own transaction: a
 * transaction-scoped advisory lock on the webhook (so its first attempts go out in chain order
 * whichever process serves it), its due deliveries claimed with `FOR UPDATE SKIP LOCKED`, sent (at
 * most `maxInFlightPerEndpoint` at once, started in order), and their attempts and outcomes written
 * before the commit. A process that dies mid-way leaves its claims to the next worker: delivery is
 * at least once, and never by two workers at once.
 */
export function startDeliveryWorkers(deps: {
  db: Kysely<Tables>;
  databaseUrl: string;
  sender: DeliverySender;
  secrets: SecretBox;
  config: WebhooksConfig;
  /** Webhooks served at once by this process; each holds one database connection while it sends. */
  slots: number;
  chainIdOf: (network: string) => number;
  onPaused: (notice: PausedNotice) => Promise<void>;
  logger: Logger;
  registry: Registry;
}): DeliveryWorkers {
  const { db, config, logger } = deps;
  const metrics = createWorkerMetrics(deps.registry);
  registerDatabaseGauge({
    registry: deps.registry,
    name: 'blockyard_webhook_pending_deliveries',
    help: 'Webhook deliveries waiting to be sent (all webhooks): due now, or scheduled later (retries, confirmations, the daily cap)',
    labelNames: ['state'],
    read: async () => {
      const { rows } = await sql<{ due: number; scheduled: number }>`
        select count(*) filter (where next_attempt_at <= now())::int as due,
               count(*) filter (where next_attempt_at > now())::int as scheduled
        from webhook_deliveries where status = 'pending'`.execute(db);
      return [
        { labels: { state: 'due' }, value: rows[0]?.due ?? 0 },
        { labels: { state: 'scheduled' }, value: rows[0]?.scheduled ?? 0 },
      ];
    },
  });
  const serving = new Map<string, Promise<void>>();
  let closed = false;
  let ticking = false;
  let again = false;
  let listener: ListenConnection | undefined;

  /** Webhooks whose signing secret did not open, until when they are left alone (not logged every poll). */
  const heldUntil = new Map<string, number>();
  const isHeld = (id: string) => {
    const until = heldUntil.get(id);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    heldUntil.delete(id);
    return false;
  };

  const timer = setInterval(() => tick(), pollMs);
  listen();

  function listen() {
    startListenConnection({
      url: deps.databaseUrl,
      channel: deliveriesChannel,
      onNotification: tick,
      onConnected: tick,
      logger,
      name: 'webhook deliveries',
    }).then(
      (connection) => {
        if (closed) void connection.close();
        else listener = connection;
      },
      (error: unknown) => logger.warn({ err: error }, 'webhook deliveries: no LISTEN connection; polling only'),
    );
  }

  function tick() {
    if (closed) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    findDue()
      .then((ids) => {
        for (const id of ids) {
          if (serving.size >= deps.slots) break;
          if (serving.has(id) || isHeld(id)) continue;
          const run = serve(id)
            .catch((error: unknown) => logger.error({ err: error, webhook: id }, 'webhook delivery round failed'))
            .then((full) => {
              serving.delete(id);
              if (full) tick();
            });
          serving.set(
            id,
            run.then(() => undefined),
          );
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not look for due webhook deliveries'))
      .finally(() => {
        ticking = false;
        if (again) {
          again = false;
          tick();
        }
      });
  }

  async function findDue(): Promise<string[]> {
    // Per webhook, an index probe that stops at its first due delivery; random order, so no webhook
    // waits behind others that always have something due.
    const { rows } = await sql<{ webhook_id: string }>`
      select w.id as webhook_id
      from webhooks w
      where w.status in ('active', 'paused')
        and exists (
          select 1 from webhook_deliveries d
          where d.webhook_id = w.id
            and d.status = 'pending'
            and d.next_attempt_at <= now()
            and (w.status = 'active' or d.kind = 'test')
            and (d.ready_block is null
                 or d.ready_block <= (select max(b.number) from index_blocks b where b.network = d.network)))
      order by random()
      limit ${deps.slots * 2}`.execute(db);
    return rows.map((row) => row.webhook_id);
  }

  /** Serves one webhook's due deliveries; true when the batch was full (more may be due). */
  async function serve(webhookId: string): Promise<boolean> {
    const paused: PausedNotice[] = [];
    const full = await db.transaction().execute(async (trx) => {
      // The database's clock, read with the lock: schedules, signature timestamps and day windows
      // compare with times other processes wrote, so they come from one clock, not this host's.
      const { rows: lock } = await sql<{ locked: boolean; db_ms: number }>`
        select pg_try_advisory_xact_lock(hashtext(${`webhook:${webhookId}`})) as locked,
               (extract(epoch from clock_timestamp()) * 1000)::float8 as db_ms`.execute(trx);
      if (!lock[0]?.locked) return false;
      const skewMs = lock[0].db_ms - Date.now();
      const now = () => new Date(Date.now() + skewMs);
      const webhook = await trx
        .selectFrom('webhooks as w')
        .innerJoin('accounts as a', 'a.id', 'w.account_id')
        .select([
          'w.id',
          'w.account_id',
          'w.url',
          'w.status',
          'w.payload_format',
          'w.secret_ciphertext',
          'w.previous_secret_ciphertext',
          'w.previous_secret_expires_at',
          'a.plan',
          'a.limits',
        ])
        .where('w.id', '=', webhookId)
        .executeTakeFirst();
      if (!webhook || webhook.status === 'disabled') return false;
      const secrets = await openWebhookSecrets(trx, deps.secrets, webhook, logger, now().getTime());
      if (!secrets) {
        heldUntil.set(webhookId, Date.now() + unopenableSecretHoldMs);
        return false;
      }
      const { rows: claimed } = await sql<ClaimedDelivery>`
        select d.id, d.event_id, d.kind, d.attempts, d.network, e.event_type, e.data, e.removed,
               e.removes_event_id, e.test, e.created_at as event_created_at
        from webhook_deliveries d
        join webhook_events e on e.id = d.event_id
        where d.webhook_id = ${webhookId}
          and d.status = 'pending'
          and d.next_attempt_at <= now()
          and (${webhook.status} = 'active' or d.kind = 'test')
          and (d.ready_block is null
               or d.ready_block <= (select max(b.number) from index_blocks b where b.network = d.network))
        order by d.position
        limit ${batchSize}
        for update of d skip locked`.execute(trx);
      if (claimed.length === 0) return false;

      const toSend = await applyDailyCap(trx, webhook.account_id, webhook.plan, webhook.limits, claimed, now());

      let stop: 'gone' | 'paused' | undefined;
      const outcomes: {
        delivery: ClaimedDelivery;
        request: { headers: Record<string, string>; body: string };
        at: Date;
        result: SendResult;
      }[] = [];
      await inOrder(toSend, config.maxInFlightPerEndpoint, async (delivery) => {
        if (stop) return;
        const type = parseEventType(delivery.event_type) ?? 'log';
        const body = renderPayload(
          {
            id: delivery.event_id,
            webhookId,
            type,
            chainId: deps.chainIdOf(delivery.network),
            data: delivery.data,
            removed: delivery.removed,
            removesEventId: delivery.removes_event_id,
            test: delivery.test,
            createdAt: new Date(delivery.event_created_at),
          },
          webhook.payload_format,
          config.maxPayloadBytes,
        );
        const at = now();
        const headers = {
          'content-type': 'application/json',
          'user-agent': 'Blockyard-Webhooks/1',
          'x-webhook-event': webhook.payload_format === 'camelCase' ? variantBName(type) : type,
          'x-webhook-idempotency-key': delivery.event_id,
          ...signatureHeaders({
            secrets,
            format: webhook.payload_format,
            eventId: delivery.event_id,
            timestamp: Math.floor(at.getTime() / 1000),
            body,
          }),
        };
        const result = await deps.sender.send(webhook.url, headers, body);
        outcomes.push({ delivery, request: { headers, body }, at, result });
        if (result.status === 410) stop = 'gone';
      });

      const updates: { id: string; status: string; next: Date; note: string | null }[] = [];
      for (const { delivery, result } of outcomes) {
        const attempt = delivery.attempts + 1;
        if (result.ok) {
          metrics.attempts.inc({ outcome: 'delivered' });
          updates.push({ id: delivery.id, status: 'succeeded', next: now(), note: null });
          continue;
        }
        if (result.status === 410) {
          metrics.attempts.inc({ outcome: 'gone' });
          updates.push({
            id: delivery.id,
            status: 'failed',
            next: now(),
            note: 'the endpoint answered 410 Gone: the webhook is disabled',
          });
          continue;
        }
        // A test event is tried once: it tells whether the endpoint works now.
        const delay =
          delivery.kind === 'test'
            ? undefined
            : nextAttemptDelayMs(config.retryScheduleS, attempt, parseRetryAfter(result.retryAfter));
        if (delay === undefined) {
          metrics.attempts.inc({ outcome: 'failed' });
          updates.push({
            id: delivery.id,
            status: 'failed',
            next: now(),
            note:
              delivery.kind === 'test'
                ? `test event not delivered: ${result.error}`
                : `failed after ${attempt} attempts: ${result.error}`,
          });
          if (delivery.kind !== 'test' && !stop) {
            stop = 'paused';
            paused.push({
              webhookId,
              accountId: webhook.account_id,
              url: webhook.url,
              attempts: attempt,
              lastError: result.error ?? 'failed',
            });
          }
          continue;
        }
        metrics.attempts.inc({ outcome: 'retrying' });
        const next = new Date(now().getTime() + delay);
        updates.push({
          id: delivery.id,
          status: 'pending',
          next,
          note: `attempt ${attempt} failed: ${result.error}; next attempt at ${next.toISOString()}`,
        });
      }

      if (outcomes.length > 0) {
        await trx
          .insertInto('webhook_attempts')
          .values(
            outcomes.map(({ delivery, request, at, result }) => ({
              delivery_id: delivery.id,
              webhook_id: webhookId,
              attempt: delivery.attempts + 1,
              attempted_at: at,
              request_url: webhook.url,
              request_headers: JSON.stringify(request.headers),
              request_body: request.body,
              response_status: result.status,
              response_body: result.responseBody,
              latency_ms: result.latencyMs,
              error: result.error,
            })),
          )
          .execute();
        await sql`
          update webhook_deliveries d
          set status = v.status, attempts = d.attempts + 1, next_attempt_at = v.next, note = v.note, updated_at = now()
          from unnest(${updates.map((u) => u.id)}::text[], ${updates.map((u) => u.status)}::text[],
                      ${updates.map((u) => u.next.toISOString())}::timestamptz[], ${updates.map((u) => u.note)}::text[])
            as v(id, status, next, note)
          where d.id = v.id`.execute(trx);
      }
      if (stop === 'gone') {
        await trx
          .updateTable('webhooks')
          .set({
            status: 'disabled',
            disabled_by: 'endpoint',
            status_reason: 'the endpoint answered 410 Gone',
            updated_at: now(),
          })
          .where('id', '=', webhookId)
          .execute();
        logger.warn({ webhook: webhookId }, 'webhook endpoint answered 410 Gone: webhook disabled');
      } else if (stop === 'paused') {
        const notice = paused[0]!;
        await trx
          .updateTable('webhooks')
          .set({
            status: 'paused',
            status_reason: `a delivery failed after ${notice.attempts} attempts: ${notice.lastError}`,
            updated_at: now(),
          })
          .where('id', '=', webhookId)
          .where('status', '=', 'active')
          .execute();
        logger.warn({ webhook: webhookId, attempts: notice.attempts }, 'webhook paused: a delivery failed after every retry');
      }
      return claimed.length === batchSize && !stop;
    });
    for (const notice of paused) {
      await deps
        .onPaused(notice)
        .catch((error: unknown) => logger.error({ err: error, webhook: notice.webhookId }, 'paused-webhook notice not sent'));
    }
    return full;
  }

  /**
   * The plan's deliveries per UTC day (free: 1,000), counted on first attempts of real events: the
   * ones over the cap wait for the next UTC day, and their log says so.
   */
  async function applyDailyCap(
    trx: Kysely<Tables>,
    accountId: string,
    plan: string,
    limits: Record<string, number | null>,
    claimed: ClaimedDelivery[],
    now: Date,
  ): Promise<ClaimedDelivery[]> {
    const cap = resolveLimits(plan as Plan, limits).webhook_deliveries_per_day;
    const counted = claimed.filter((delivery) => delivery.attempts === 0 && delivery.kind !== 'test');
    if (cap === null || counted.length === 0) return claimed;
    const day = now.toISOString().slice(0, 10);
    await trx
      .insertInto('webhook_daily_usage')
      .values({ account_id: accountId, day, deliveries: 0 })
      .onConflict((oc) => oc.columns(['account_id', 'day']).doNothing())
      .execute();
    const usage = await trx
      .selectFrom('webhook_daily_usage')
      .select('deliveries')
      .where('account_id', '=', accountId)
      .where('day', '=', day)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const room = Math.max(0, cap - usage.deliveries);
    const over = new Set(counted.slice(room).map((delivery) => delivery.id));
    await trx
      .updateTable('webhook_daily_usage')
      .set({ deliveries: usage.deliveries + Math.min(room, counted.length) })
      .where('account_id', '=', accountId)
      .where('day', '=', day)
      .execute();
    if (over.size > 0) {
      const tomorrow = nextUtcDay(now);
      await trx
        .updateTable('webhook_deliveries')
        .set({
          next_attempt_at: tomorrow,
          note: `waiting: the plan's ${cap} webhook deliveries a day are used; sent from ${tomorrow.toISOString()}`,
          updated_at: now,
        })
        .where('id', 'in', [...over])
        .execute();
    }
    return claimed.filter((delivery) => !over.has(delivery.id));
  }

  return {
    poke: tick,
    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.all(serving.values());
      await listener?.close();
    },
  };
}

/** Runs `work` over `items` with at most `limit` at once, starting them in order. */
async function inOrder<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(lanes);
}
