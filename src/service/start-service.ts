import type { DestinationStream, Logger } from 'pino';
import { createEnhancedMethods } from '../alchemy/enhanced-methods.ts';
import type { Devnet } from '../chains/devnet.ts';
import type { Config } from '../config/schema.ts';
import type { Context } from '../context/context.ts';
import { createShutdown } from '../core/shutdown.ts';
import type { ExpiredRowsSweeper } from '../dashboard/expired-rows-sweeper.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { databaseUnavailable } from '../db/unavailable.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import { startDependencyGauge } from '../health/dependency-gauge.ts';
import { createHealthCheck, type LivenessProbe } from '../health/health-check.ts';
import { createRedisPing, describeRedisUrl, type RedisPing } from '../health/redis-ping.ts';
import { createBackfillStore } from '../indexer/backfill-store.ts';
import type { Indexer } from '../indexer/indexer.ts';
import { startIndexers } from '../indexer/start-indexers.ts';
import { createIndexStore } from '../indexer/store.ts';
import { createDataQuerySlots, unavailableWhileStalled } from '../limits/data-query-slots.ts';
import { createRedisDataQuerySlots } from '../limits/redis-data-query-slots.ts';
import { createLogger } from '../observability/logger.ts';
import { createMetrics } from '../observability/metrics.ts';
import type { NetworkPaymasters } from '../paymaster/start-paymasters.ts';
import { startTracing } from '../tracing/start-tracing.ts';
import type { JoinedService } from './join-running-service.ts';
import { wireAccounts } from './wire-accounts.ts';
import { wireBundler } from './wire-bundler.ts';
import { wireChainData } from './wire-chain-data.ts';
import { wireChainEvents } from './wire-chain-events.ts';
import { wireDashboard } from './wire-dashboard.ts';
import { wireDevAccess } from './wire-dev-access.ts';
import { wireDevnet } from './wire-devnet.ts';
import { wireHttp } from './wire-http.ts';
import { wireSponsorship } from './wire-sponsorship.ts';
import { wireStorage } from './wire-storage.ts';
import { wireUpstreams } from './wire-upstreams.ts';
import { wireUsage } from './wire-usage.ts';
import { wireWebhooks } from './wire-webhooks.ts';

export interface RunningService {
  readonly ctx: Context;
  /** `http://host:port` the API listens on. */
  readonly url: string;
  readonly adminToken: string;
  /** The development key (development mode only). */
  readonly devKey?: { key: string; created: boolean; path: string };
  /** Development mode: a one-time link that signs the dev user into the dashboard (24 h). */
  readonly devSignInUrl?: string;
  readonly devnet?: Devnet;
  /** The embedded Postgres's URL (absent with DATABASE_URL): other processes of the deployment can share it. */
  readonly embeddedDatabaseUrl?: string;
  /** The service this process joined (`--join`): its database and devnet are used, not started. */
  readonly joined?: JoinedService;
  /** The indexers this process runs (role `indexer`), one per indexed network. */
  readonly indexers: readonly Indexer[];
  /** Chain events committed by this process's indexers. */
  readonly events: ChainEventBus;
  /** Gas sponsorship's paymasters and their deposits, by `chain/network` (processes serving the API). */
  readonly paymasters: ReadonlyMap<string, NetworkPaymasters>;
  /** Settles gas sponsorships now (processes serving the API; it also runs every 2 s). */
  readonly sponsorshipSettler?: { settleNow(): Promise<void> };
  /** Writes the usage counted so far to `usage_minutes` now (processes serving the API; it also runs every 5 s). */
  readonly usage?: { flushNow(): Promise<void> };
  /** Deletes expired dashboard sessions and one-time tokens now (processes serving the API; every 15 min too). */
  readonly expiredRows?: Pick<ExpiredRowsSweeper, 'sweepNow'>;
  /** Why this node started not ready (a configured Redis it cannot reach), one sentence each; empty when ready. */
  readonly notReady: readonly string[];
  stop(reason?: string): Promise<void>;
}

export interface StartOptions {
  /** Where logs go (tests capture them); default stdout. */
  logDestination?: DestinationStream;
  logger?: Logger;
  /** An already open, migrated-or-not database the caller owns (tests); default: opened from the config. */
  database?: OpenDatabase;
}

/**
 * The composition root: the only place connections are opened and parts wired (each capability's
 * wiring step is a `wire-*.ts` beside this file, called only from here). Everything opened registers
 * its cleanup with the shutdown registry, which closes them in reverse order.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel, options.logDestination);
  const shutdown = createShutdown(logger);
  const ctx: Context = { config, logger, metrics: createMetrics(), shutdown };
  try {
    // First opened, last closed: the spans of everything's shutdown are sent too.
    if (config.tracing !== undefined) {
      const tracing = await startTracing(config.tracing, logger);
      shutdown.add('tracing', () => tracing.stop());
    }
    return await wire(ctx, options.database);
  } catch (error) {
    await shutdown.run('start failed');
    throw error;
  }
}

/** The wiring steps, in order: what one opens, the next may use; their cleanups run in reverse. */
async function wire(ctx: Context, given: OpenDatabase | undefined): Promise<RunningService> {
  const { config, logger, shutdown } = ctx;
  const storage = await wireStorage(ctx, given);
  const { database, lock } = storage;
  const probes: LivenessProbe[] = [];
  const { devnet, upstream } = await wireDevnet(ctx, storage, probes);
  const upstreams = await wireUpstreams(ctx, upstream);
  const { chains } = upstreams;
  const access = await wireAccounts(ctx, database);
  const { events, relay } = await wireChainEvents(ctx, database);
  const indexStore = createIndexStore(database.db, config.limits.indexerStatementTimeoutMs);
  const backfillStore = createBackfillStore(database.db, config.limits.indexerStatementTimeoutMs);
  const lost = ctx.metrics.dependencyConnectionsLost;
  const redisPing = config.redisUrl
    ? createRedisPing(config.redisUrl, { onConnectionLost: () => lost.inc({ dependency: 'redis' }) })
    : undefined;
  if (redisPing) {
    lost.inc({ dependency: 'redis' }, 0);
    shutdown.add('redis readiness ping', () => redisPing.close());
  }
  const health = createHealthCheck({ db: database.db, chains, probes, redis: redisPing, readyNetworks: config.readyNetworks });
  const stopDependencyGauge = startDependencyGauge(
    ctx.metrics.registry,
    health,
    redisPing ? ['database', 'redis'] : ['database'],
  );
  shutdown.add('dependency gauge', stopDependencyGauge);
  let indexers: Indexer[] = [];
  const chainData = await wireChainData(ctx, { database, chains, events, devnet, indexers: () => indexers });
  const webhooks = await wireWebhooks(ctx, { database, chains, events, tokens: chainData.tokens });
  const bundler = wireBundler(ctx, { database, chains, rpcCache: upstreams.rpcCache });
  const sponsorship = wireSponsorship(ctx, { database, chains, tokens: chainData.tokens });
  const usage = wireUsage(ctx, database);
  const enhanced = createEnhancedMethods({ db: database.db, tokens: chainData.tokens, logger });
  const dashboard = wireDashboard(ctx, database);
  // Shared by every node on the Redis when there is one: the cap is the account's, not each node's.
  const slots = config.redisUrl
    ? createRedisDataQuerySlots(config.redisUrl, config.limits.dataQueriesPerAccount)
    : createDataQuerySlots(config.limits.dataQueriesPerAccount);
  const dataQueries = unavailableWhileStalled(slots, () => database.stalled?.() ?? false, databaseUnavailable);
  shutdown.add('data query slots', () => dataQueries.close());
  const parts = {
    database,
    upstreams,
    access,
    chainData,
    webhooks,
    bundler,
    sponsorship,
    usage,
    dashboard,
    indexStore,
    backfillStore,
    health,
    enhanced,
    dataQueries,
  };
  const { url } = await wireHttp(ctx, parts);
  const { devKey, devSignInUrl } = await wireDevAccess(ctx, url, access, dashboard);
  lock?.update({ url });
  const notReady = await readinessAtStart(ctx, redisPing);
  if (notReady.length === 0) logger.info({ url, roles: config.roles }, 'blockyard ready');
  else logger.warn({ url, roles: config.roles, notReady }, `blockyard started, not ready: ${notReady.join('; ')}`);

  // Started once the API listens, so a long backfill never delays readiness.
  indexers = config.roles.includes('indexer')
    ? startIndexers({ ctx, chains, database, store: indexStore, backfills: backfillStore, publish: () => relay.poke() })
    : [];

  return {
    ctx,
    url,
    adminToken: access.adminToken,
    devKey,
    devSignInUrl,
    devnet,
    embeddedDatabaseUrl: storage.embeddedDatabaseUrl,
    ...(storage.joined ? { joined: storage.joined } : {}),
    indexers,
    events,
    paymasters: sponsorship.paymasters,
    sponsorshipSettler: sponsorship.settler,
    ...(dashboard.expiredRows ? { expiredRows: dashboard.expiredRows } : {}),
    usage: usage.recorder,
    notReady,
    stop: (reason = 'stop') => shutdown.run(reason),
  };
}

/** How long the start waits for a configured Redis's first answer before it reports the node not ready. */
const redisAtStartMs = 2_000;

/**
 * What keeps the node from being ready as it starts, in words for the log and the console. A Redis that
 * cannot be reached does not stop the start (as a chain node down at start does not): the node runs
 * unready (/healthz 503 naming it, /v1 503) and uses Redis once it answers, as after an outage.
 */
async function readinessAtStart(ctx: Context, redis: RedisPing | undefined): Promise<string[]> {
  const url = ctx.config.redisUrl;
  if (redis === undefined || url === undefined) return [];
  const problem = await redis.problemAtStart(redisAtStartMs);
  if (problem === undefined) return [];
  return [
    `Redis at ${describeRedisUrl(url)} (REDIS_URL) cannot be reached (${problem}): /healthz answers 503 and every /v1 request 503 until it answers; it is tried again every second`,
  ];
}
