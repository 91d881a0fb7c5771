import { join } from 'node:path';
import type { ChainRegistry } from '../chains/registry.ts';
import { privateDestinations } from '../config/private-destinations.ts';
import type { Context } from '../context/context.ts';
import { openDatabase } from '../db/connect.ts';
import type { Mailer } from '../email/mailer.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import { registerMatcherBehindGauge } from './delivery-metrics.ts';
import { type DeliveryWorkers, startDeliveryWorkers } from './delivery-worker.ts';
import { type Enricher, matchRound } from './matcher.ts';
import { createPausedNotifier } from './paused-notice.ts';
import { startPausedNoticeSender } from './paused-notice-outbox.ts';
import { startPendingFeed } from './pending-feed.ts';
import type { SecretBox } from './secrets.ts';
import { createDeliverySender } from './send-delivery.ts';
import { createWebhookCache } from './webhook-cache.ts';
import { bindAllUnboundSecrets } from './webhook-secrets.ts';

/** Webhooks one process serves at once (each holds a database connection while its batch is sent). */
const workerSlots = 8;
/** The matcher also runs this often without a push, for events another process's relay saw first. */
const matchPollMs = 1000;

export interface WebhookRole {
  /** Something was queued: look for due deliveries now. */
  poke(): void;
  close(): Promise<void>;
}

/**
 * The `webhooks` role: the matcher (chain events -> outbox, one process of the deployment at a time),
 * the pending-transaction feed, and the delivery workers. Its own connection pool, so deliveries in
 * flight never take the API's connections.
 */
export async function startWebhookRole(deps: {
  ctx: Context;
  databaseUrl: string;
  chains: ChainRegistry;
  events: ChainEventBus;
  secrets: SecretBox;
  enricher: Enricher;
  mailer: Mailer;
}): Promise<WebhookRole> {
  const { ctx, chains } = deps;
  const { config, logger } = ctx;
  const database = await openDatabase({
    url: deps.databaseUrl,
    maxConnections: workerSlots + 3,
    statementTimeoutMs: config.limits.statementTimeoutMs,
  });
  const db = database.db;
  void bindAllUnboundSecrets(db, deps.secrets, logger).catch((error: unknown) =>
    logger.warn({ err: error }, 'could not bind the stored webhook signing secrets to their webhooks'),
  );
  const networks = chains.list().filter((network) => network.config.kind === 'evm');
  const factsOf = (name: string) => {
    const network = networks.find((candidate) => `${candidate.config.chain}/${candidate.config.network}` === name);
    return network && { chain: network.config.chain, network: network.config.network, nativeSymbol: network.config.nativeSymbol };
  };
  const chainIds = new Map(
    networks.map((network) => [`${network.config.chain}/${network.config.network}`, network.config.chainId]),
  );
  const cache = createWebhookCache(db, factsOf);
  const sender = createDeliverySender({
    mode: config.mode,
    timeoutMs: config.webhooks.timeoutMs,
    privateDestinations: privateDestinations(config.webhooks.privateDestinations),
  });
  // Also sends the notices a process that died left unsent.
  const notices = startPausedNoticeSender({ db, notify: createPausedNotifier({ db, mailer: deps.mailer, logger }), logger });
  const workers: DeliveryWorkers = startDeliveryWorkers({
    db,
    databaseUrl: deps.databaseUrl,
    sender,
    secrets: deps.secrets,
    config: config.webhooks,
    slots: workerSlots,
    chainIdOf: (network) => chainIds.get(network) ?? 0,
    onPaused: () => notices.wake(),
    logger,
    registry: ctx.metrics.registry,
  });

  registerMatcherBehindGauge(db, ctx.metrics.registry);

  let closed = false;
  let matching: Promise<void> | undefined;
  let again = false;
  function match() {
    if (closed) return;
    if (matching) {
      again = true;
      return;
    }
    matching = (async () => {
      for (;;) {
        const round = await matchRound({ db, webhooks: cache.current, enricher: deps.enricher, logger });
        if (round.queued > 0) workers.poke();
        if (!round.more || closed) break;
      }
    })()
      .catch((error: unknown) => logger.warn({ err: error }, 'webhook matching round failed; retried at the next event'))
      .finally(() => {
        matching = undefined;
        if (again) {
          again = false;
          match();
        }
      });
  }
  const unsubscribe = deps.events.subscribe(() => match());
  const timer = setInterval(match, matchPollMs);
  match();
  const pending = startPendingFeed({
    db,
    networks,
    webhooks: cache.current,
    pollMs: config.webhooks.pendingPollMs,
    queued: () => workers.poke(),
    logger,
  });
  logger.info({ outbox: join(config.dataDir, 'outbox') }, 'webhook matcher and delivery workers running');

  return {
    poke: () => workers.poke(),
    async close() {
      closed = true;
      unsubscribe();
      clearInterval(timer);
      await pending.close();
      await matching;
      await workers.close();
      await notices.close();
      await sender.close();
      await database.close();
    },
  };
}
