import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { WebhooksConfig } from '../config/webhook-settings.ts';
import { type ListenConnection, startListenConnection } from '../db/listen-connection.ts';
import type { Tables } from '../db/tables.ts';
import { findDueWebhooks } from './claim-deliveries.ts';
import { sweepDeletedWebhooks } from './delete-webhook.ts';
import { createAttemptCounter, registerPendingDeliveriesGauge } from './delivery-metrics.ts';
import { deliveriesChannel } from './outbox.ts';
import type { SecretBox } from './secrets.ts';
import type { DeliverySender } from './send-delivery.ts';
import { type ServeDeps, type ServeResult, serveWebhook } from './serve-webhook.ts';
import { unopenableSecretHoldMs } from './webhook-secrets.ts';

const pollMs = 250;
/** How often the webhooks deleted while a round was sending to them are looked for, to be removed. */
const sweepDeletedMs = 5_000;

export interface DeliveryWorkers {
  /** Look for due deliveries now (something was just queued in this process). */
  poke(): void;
  /** Resolves once no delivery is due (tests). */
  close(): Promise<void>;
}

/**
 * The delivery engine of one process. Each due webhook is served in its own transaction: a
 * transaction-scoped advisory lock on the webhook (so its first attempts go out in chain order
 * whichever process serves it), its due deliveries claimed with `FOR UPDATE SKIP LOCKED`, sent (at
 * most `maxInFlightPerEndpoint` at once, started in order), and their attempts and outcomes written
 * before the commit (`serveWebhook`). A process that dies mid-way leaves its claims to the next
 * worker: delivery is at least once, and never by two workers at once. This factory only schedules:
 * it looks for due webhooks on a poll, on a NOTIFY and on a poke, and serves up to `slots` at once;
 * the due webhooks it had no slot for take the slots in turn as rounds end.
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
  /** A pause committed: its notice, recorded with it, is due. */
  onPaused: () => void;
  logger: Logger;
  registry: Registry;
}): DeliveryWorkers {
  const { db, logger } = deps;
  registerPendingDeliveriesGauge(db, deps.registry);
  const serveDeps: ServeDeps = { ...deps, attempts: createAttemptCounter(deps.registry) };
  const serving = new Map<string, Promise<void>>();
  const held = createHoldList();
  let closed = false;
  let ticking = false;
  let again = false;
  /** Due webhooks the last lookup had no slot for, in its (random) order: the next to get a slot. */
  const waiting: string[] = [];
  let listener: ListenConnection | undefined;

  const timer = setInterval(() => tick(), pollMs);
  let sweeping = false;
  const sweepTimer = setInterval(() => {
    if (sweeping || closed) return;
    sweeping = true;
    sweepDeletedWebhooks(db)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not remove deleted webhooks'))
      .finally(() => {
        sweeping = false;
      });
  }, sweepDeletedMs);
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

  function tick() {
    if (closed) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    findDueWebhooks(db, deps.slots * 2)
      .then((ids) => {
        waiting.length = 0;
        for (const id of ids) {
          if (serving.has(id) || held.has(id)) continue;
          if (serving.size >= deps.slots) waiting.push(id);
          else serving.set(id, serve(id));
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

  /**
   * Serves one webhook's rounds. After a full round (more may be due) the slot goes to the next
   * webhook waiting for one, and this one joins the back of the line; when none waits, this one's next
   * round follows at once. A slot freed goes to the next waiting webhook too: no lookup and no wait
   * for a tick in between.
   */
  async function serve(id: string): Promise<void> {
    let result: ServeResult;
    for (;;) {
      result = await serveWebhook(serveDeps, id).catch((error: unknown) => {
        logger.error({ err: error, webhook: id }, 'webhook delivery round failed');
        return 'done' as const;
      });
      if (result !== 'full' || closed) break;
      const next = nextWaiting();
      if (next === undefined) continue;
      waiting.push(id);
      serving.delete(id);
      serving.set(next, serve(next));
      return;
    }
    if (result === 'held') held.hold(id, unopenableSecretHoldMs);
    serving.delete(id);
    if (closed) return;
    const next = nextWaiting();
    if (next !== undefined) serving.set(next, serve(next));
    else if (result === 'full') tick();
  }

  function nextWaiting(): string | undefined {
    while (waiting.length > 0) {
      const id = waiting.shift()!;
      if (!serving.has(id) && !held.has(id)) return id;
    }
    return undefined;
  }

  return {
    poke: tick,
    async close() {
      closed = true;
      clearInterval(timer);
      clearInterval(sweepTimer);
      await Promise.all(serving.values());
      await listener?.close();
    },
  };
}

/** Webhooks whose signing secret did not open, until when they are left alone (not logged every poll). */
function createHoldList() {
  const heldUntil = new Map<string, number>();
  return {
    hold(id: string, forMs: number) {
      heldUntil.set(id, Date.now() + forMs);
    },
    has(id: string): boolean {
      const until = heldUntil.get(id);
      if (until === undefined) return false;
      if (until > Date.now()) return true;
      heldUntil.delete(id);
      return false;
    },
  };
}
