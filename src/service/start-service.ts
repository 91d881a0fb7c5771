import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { ensureDevKey } from '../accounts/dev-key.ts';
import { startKeyChangeListener } from '../accounts/key-change-listener.ts';
import { createKeyChangeStore } from '../accounts/key-change-store.ts';
import { accountAdminRoutes } from '../accounts/routes.ts';
import { createAccountService } from '../accounts/service.ts';
import { createAccountStore } from '../accounts/store.ts';
import { createEnhancedMethods } from '../alchemy/enhanced-methods.ts';
import { resolveAdminToken } from '../auth/admin-token.ts';
import { createAuthenticator } from '../auth/authenticator.ts';
import { createRequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import { type BundleLoop, startBundleLoop } from '../bundler/bundle-loop.ts';
import { createBundlerService } from '../bundler/bundler-service.ts';
import { executorKeysFor } from '../bundler/executor-keys.ts';
import { bundlerRoutes } from '../bundler/routes.ts';
import { type Devnet, startDevnet } from '../chains/devnet.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { chainStatusRoutes } from '../chains/status-routes.ts';
import type { Config, UpstreamConfig } from '../config/schema.ts';
import { installMulticall3 } from '../contracts/install-multicall3.ts';
import type { Context } from '../core/context.ts';
import { createShutdown } from '../core/shutdown.ts';
import { dashboardApi, dashboardApiPrefix, setDashboardHeaders } from '../dashboard/dashboard-api.ts';
import { ensureDevUser } from '../dashboard/dev-user.ts';
import { createEmailVerificationStore } from '../dashboard/email-verification-store.ts';
import { type ExpiredRowsSweeper, startExpiredRowsSweeper } from '../dashboard/expired-rows-sweeper.ts';
import { createInvitationStore } from '../dashboard/invitation-store.ts';
import { createMailRequestLimits } from '../dashboard/mail-request-limits.ts';
import { createSessionStore } from '../dashboard/session-store.ts';
import { createSignInLimits } from '../dashboard/sign-in-limits.ts';
import { signInLinkPath } from '../dashboard/sign-in-link.ts';
import { userAdminRoutes } from '../dashboard/user-admin-routes.ts';
import { createUserStore } from '../dashboard/user-store.ts';
import { createUserTokenStore } from '../dashboard/user-token-store.ts';
import { loadWebApp } from '../dashboard/web-routes.ts';
import { describeDatabaseUrl, type OpenDatabase } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { demoPricesOnDevnet } from '../demo/demo-prices.ts';
import { demoContractAddresses, deployDemo } from '../demo/deploy-demo.ts';
import { createMailer, type Mailer } from '../email/mailer.ts';
import { installErc4337Contracts } from '../erc4337/contracts/install.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import { createInProcessEventBus } from '../events/event-bus.ts';
import { startPostgresEventRelay } from '../events/postgres-relay.ts';
import { gasRoutes } from '../gas/routes.ts';
import { createGasPriceService } from '../gas/service.ts';
import { createHealthCheck, type LivenessProbe } from '../health/health-check.ts';
import { operationsRoutes } from '../health/routes.ts';
import { createAdminGuard } from '../http/admin-guard.ts';
import { compileTrustProxy } from '../http/client-address.ts';
import { closeServer } from '../http/close-server.ts';
import { createKeyCors } from '../http/key-cors.ts';
import { serveKeyInPathForms } from '../http/key-in-path-routes.ts';
import { buildServer } from '../http/server.ts';
import { createUnroutedV1Guard, createV1Guard } from '../http/v1-guard.ts';
import type { Indexer } from '../indexer/indexer.ts';
import { indexAdminRoutes } from '../indexer/routes.ts';
import { startIndexers } from '../indexer/start-indexers.ts';
import { createIndexStore } from '../indexer/store.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import { createMemoryLimiter } from '../limits/memory-limiter.ts';
import { createRedisLimiter } from '../limits/redis-limiter.ts';
import { alchemyV3NftRoutes } from '../nfts/alchemy-v3/routes.ts';
import { createAlchemyV3Nfts } from '../nfts/alchemy-v3/service.ts';
import { createNftIndexReads } from '../nfts/index-reads.ts';
import { nftRoutes } from '../nfts/routes.ts';
import { createNftService } from '../nfts/service.ts';
import { createLogger } from '../observability/logger.ts';
import { createMetrics } from '../observability/metrics.ts';
import { installDevnetPaymasters } from '../paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../paymaster/paymaster-setup.ts';
import { type NetworkPaymasters, startPaymasters } from '../paymaster/start-paymasters.ts';
import { createRpcCache } from '../rpc/cache/rpc-cache.ts';
import { rpcFastRoutes } from '../rpc/fast-route.ts';
import { rpcRoutes } from '../rpc/routes.ts';
import { createErc7677Methods } from '../sponsorship/erc7677.ts';
import { policyRoutes } from '../sponsorship/policy-routes.ts';
import { policyUsageRoutes } from '../sponsorship/policy-usage-routes.ts';
import { sponsorRoutes } from '../sponsorship/sponsor-routes.ts';
import { createSponsorService } from '../sponsorship/sponsor-service.ts';
import { startSponsorshipSettler } from '../sponsorship/sponsorship-settler.ts';
import { tokenRoutes } from '../tokens/routes.ts';
import { createTokenService } from '../tokens/service.ts';
import { createTokenFactsLookup } from '../tokens/token-facts.ts';
import { transferRoutes } from '../transfers/routes.ts';
import { createTransferService } from '../transfers/service.ts';
import { createUsageRecorder, type UsageRecorder } from '../usage/recorder.ts';
import { createRestUsageHook } from '../usage/rest-usage.ts';
import { usageRoutes } from '../usage/routes.ts';
import { createUsageStore } from '../usage/store.ts';
import { createDeploymentWatcher } from '../wallets/deployment-watcher.ts';
import { walletRoutes } from '../wallets/routes.ts';
import { createWalletService } from '../wallets/service.ts';
import { webhookAdminRoutes } from '../webhooks/admin-routes.ts';
import { createEnricher } from '../webhooks/enricher.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { createSecretBox } from '../webhooks/secrets.ts';
import { createWebhookService } from '../webhooks/service.ts';
import { startWebhookRole, type WebhookRole } from '../webhooks/start-webhooks.ts';
import { createWsEndpoint, wsLimits } from '../ws/endpoint.ts';
import { acquireInstanceLock } from './instance-lock.ts';
import { type JoinedService, joinRunningService } from './join-running-service.ts';
import { openServiceDatabase } from './open-service-database.ts';

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
 * The composition root: the only place connections are opened and parts wired. Everything opened
 * registers its cleanup with the shutdown registry, which closes them in reverse order.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel, options.logDestination);
  const shutdown = createShutdown(logger);
  const ctx: Context = { config, logger, metrics: createMetrics(), shutdown };
  try {
    return await wire(ctx, options.database);
  } catch (error) {
    await shutdown.run('start failed');
    throw error;
  }
}

async function wire(ctx: Context, given: OpenDatabase | undefined): Promise<RunningService> {
  const { config, logger, metrics, shutdown } = ctx;
  mkdirSync(config.dataDir, { recursive: true });
  const embedded = config.chains.find((chain) => chain.embedded);
  // A joining process uses the running service's database and devnet, and starts neither.
  const joined = config.join ? await joinRunningService(config) : undefined;
  // The embedded database and devnet live in the data directory: one process at a time may run them.
  const runsEmbedded = !joined && ((!given && !config.databaseUrl) || embedded !== undefined);
  const lock = runsEmbedded ? await acquireInstanceLock(config.dataDir) : undefined;
  if (lock) shutdown.add('data directory lock', () => lock.release());
  if (joined) logger.info({ pid: joined.pid, dataDir: config.dataDir }, 'joining the service running on the data directory');

  const opened = given ? { database: given, embedded: undefined } : await openServiceDatabase(ctx, joined?.databaseUrl);
  const { database } = opened;
  const embeddedDatabaseUrl = opened.embedded?.url;
  if (embeddedDatabaseUrl) lock?.update({ databaseUrl: embeddedDatabaseUrl });
  const applied = await migrateToLatest(database.db);
  logger.info(
    { database: describeDatabaseUrl(database.url), embedded: embeddedDatabaseUrl !== undefined, applied },
    'database ready',
  );

  const probes: LivenessProbe[] = [];
  let devnet: Devnet | undefined;
  let embeddedUpstream: UpstreamConfig | undefined;
  if (embedded && joined) {
    embeddedUpstream = joined.devnet;
  } else if (embedded) {
    devnet = await startDevnet({
      dir: join(config.dataDir, 'devnet'),
      blockTimeS: embedded.blockTimeS,
      chainId: embedded.chainId,
      logger,
    });
    shutdown.add('devnet', () => devnet?.stop());
    embeddedUpstream = { url: devnet.url, wsUrl: devnet.wsUrl };
    lock?.update({ devnet: { url: devnet.url, wsUrl: devnet.wsUrl } });
    probes.push({ name: 'devnet process', alive: () => devnet?.alive ?? false });
    // Token balances are read with Multicall3, which every public chain has at its usual address.
    await installMulticall3(devnet.url);
    // ERC-4337: EntryPoint v0.6 and v0.7 and their SimpleAccountFactory, at the canonical addresses.
    await installErc4337Contracts(devnet.url);
    // Gas sponsorship: VerifyingPaymaster v0.6 and v0.7 for the sponsor key, staked and funded.
    await installDevnetPaymasters(devnet.url, paymasterSetupsOf({ config: embedded }, config));
    logger.info({ chain: `${embedded.chain}/${embedded.network}`, url: devnet.url }, 'embedded devnet (anvil) running');
  }

  const chains = createChainRegistry(config.chains, { embeddedUpstream, metricsRegistry: metrics.registry });
  shutdown.add('upstreams', () => chains.close());

  const rpcCache = createRpcCache({ networks: chains.list(), registry: metrics.registry, redisUrl: config.redisUrl });
  shutdown.add('rpc cache', () => rpcCache.close());

  const limiter: RateLimiter = config.redisUrl ? createRedisLimiter({ url: config.redisUrl }) : createMemoryLimiter();
  shutdown.add('rate limiter', () => limiter.close());

  const store = createAccountStore(database.db);
  const authenticator = createAuthenticator({ store });
  const restrictions = createRequestRestrictions({ jwtAudience: config.jwtAudience });
  const trustProxy = compileTrustProxy(config.trustProxy);
  const accounts = createAccountService({
    store,
    keyStore: createKeyChangeStore(database.db),
    onKeyChanged: (keyId) => authenticator.forget(keyId),
    sponsorshipCaps: config.gas.sponsorshipCaps,
  });
  // A key changed through another process (restrict, rotate, revoke) leaves this one's cache at once.
  const keyChanges = await startKeyChangeListener({ databaseUrl: database.url, authenticator, logger });
  shutdown.add('API key changes', () => keyChanges.close());
  const adminToken = resolveAdminToken(config);
  const gas = createGasPriceService({ send: (network, body) => network.upstream.send(body) });
  const events = createInProcessEventBus(logger);
  shutdown.add('chain events', () => events.close());
  // Every process gets the event stream from the table (LISTEN/NOTIFY), in seq order.
  const relay = await startPostgresEventRelay({ databaseUrl: database.url, db: database.db, bus: events, logger });
  shutdown.add('chain event relay', () => relay.close());
  const indexStore = createIndexStore(database.db);
  const health = createHealthCheck({ db: database.db, chains, probes });

  const tokens = createTokenService({ ctx, db: database.db });
  if (config.demo) {
    if (!devnet) throw new Error('--demo needs the embedded devnet (a config without chains:, or with `embedded: true`)');
    await deployDemo({ rpcUrl: devnet.url, log: logger });
  }
  // The demo token's price comes with the demo's data (this run's or an earlier --demo run's), not with the flag.
  if (devnet) {
    const { token } = await demoContractAddresses();
    for (const price of await demoPricesOnDevnet(devnet.url, token)) tokens.addStaticPrice(price);
  }

  const nfts = createNftService({ db: database.db, config, chains, logger });
  shutdown.add('nft metadata fetcher', () => nfts.close());
  // Minted tokens get their metadata fetched in the background, before anyone asks: by the process
  // that indexes the network (every process sees every event; one fetch is enough).
  let indexers: Indexer[] = [];
  const wallets = createWalletService({ db: database.db, chains });
  const entryPoints = new Map(
    chains
      .list()
      .map((network) => [
        `${network.config.chain}/${network.config.network}`,
        [network.config.erc4337.entryPointV06.toLowerCase(), network.config.erc4337.entryPointV07.toLowerCase()],
      ]),
  );
  const watchDeployments = createDeploymentWatcher({
    db: database.db,
    entryPoints: (network) => entryPoints.get(network) ?? [],
    logger,
  });
  events.subscribe((batch) => {
    const mine = batch.filter((event) => indexers.some((indexer) => indexer.network === event.network && indexer.isRunning()));
    if (mine.length === 0) return;
    nfts.fetcher.listener(mine);
    void watchDeployments(mine);
  });
  const secrets = createSecretBox(config);
  const enricher = createEnricher({ db: database.db, chains, tokens, logger });
  let webhookRole: WebhookRole | undefined;
  const webhooks = createWebhookService({
    db: database.db,
    chains,
    secrets,
    mode: config.mode,
    privateDestinations: config.webhooks.privateDestinations,
    enricher,
    queued: () => webhookRole?.poke(),
    replay: { maxEvents: config.webhooks.replayMaxEvents, pageEvents: config.webhooks.replayPageEvents },
  });
  // Webhook notices and the dashboard's password-reset mails.
  let mailer: Mailer | undefined;
  if (config.roles.includes('webhooks') || config.roles.includes('api')) {
    mailer = createMailer({
      smtpUrl: config.email.smtpUrl,
      from: config.email.from,
      outboxDir: join(config.dataDir, 'outbox'),
      logger,
    });
    const opened = mailer;
    shutdown.add('mailer', () => opened.close());
  }
  if (mailer && config.roles.includes('webhooks')) {
    webhookRole = await startWebhookRole({ ctx, databaseUrl: database.url, chains, events, secrets, enricher, mailer });
    shutdown.add('webhook delivery', () => webhookRole?.close());
  }
  const bundleLoops = new Map<string, BundleLoop>();
  const bundler = createBundlerService({
    db: database.db,
    queued: (network) => bundleLoops.get(network)?.poke(),
    loopOf: (network) => bundleLoops.get(network),
  });
  if (config.roles.includes('bundler')) {
    for (const network of chains.list()) {
      if (network.config.kind !== 'evm' || !network.config.bundler.enabled) continue;
      const name = `${network.config.chain}/${network.config.network}`;
      const executorKeys = executorKeysFor(network.config, config.bundlerKeys);
      if (executorKeys.length === 0) {
        logger.warn(
          { network: name },
          'bundler enabled without executor keys (executor_keys_file or BLOCKYARD_BUNDLER_KEYS): not bundling',
        );
        continue;
      }
      const loop = startBundleLoop({
        db: database.db,
        databaseUrl: database.url,
        network,
        executorKeys,
        maxBundleOps: network.config.bundler.maxBundleOps,
        logger,
        registry: metrics.registry,
        chainChanged: () => rpcCache.chainChanged(network),
      });
      bundleLoops.set(name, loop);
      shutdown.add(`bundler ${name}`, () => loop.close());
    }
  }
  // Every process serves /healthz, /metrics and the admin API; only the api role serves /v1 and WebSockets.
  const servesApi = config.roles.includes('api');
  // Sponsorship is decided where the API is served: there the paymasters' deposits are watched.
  const paymasters = servesApi ? startPaymasters(ctx, chains) : new Map<string, NetworkPaymasters>();
  const sponsors = createSponsorService({
    db: database.db,
    networks: chains.list(),
    paymasterOf: (network, version) => paymasters.get(`${network.config.chain}/${network.config.network}`)?.setups[version],
    nativeUsdPrice: (network) => tokens.nativeUsdPrice(network),
    sponsorshipCaps: config.gas.sponsorshipCaps,
  });
  let sponsorshipSettler: ReturnType<typeof startSponsorshipSettler> | undefined;
  if (servesApi) {
    const settler = startSponsorshipSettler({
      db: database.db,
      networks: chains.list(),
      nativeUsdPrice: (network) => tokens.nativeUsdPrice(network),
      logger,
    });
    shutdown.add('gas sponsorship settler', () => settler.close());
    sponsorshipSettler = settler;
  }
  const usageStore = createUsageStore(database.db);
  // Alchemy's enhanced JSON-RPC methods, on /v1/rpc and the bundler's endpoint (src/alchemy).
  const enhanced = createEnhancedMethods({ db: database.db, tokens, logger });
  let usage: UsageRecorder | undefined;
  if (servesApi) {
    const recorder = createUsageRecorder({ write: usageStore.write, logger });
    // Registered before the HTTP server, so it writes after the server has drained its last requests.
    shutdown.add('usage recorder', () => recorder.close());
    usage = recorder;
  }
  const chainStatus = { chains, indexProgress: () => indexStore.progress() };
  const users = createUserStore(database.db);
  const userTokens = createUserTokenStore(database.db);
  const expiredRows = servesApi ? startExpiredRowsSweeper({ db: database.db, logger }) : undefined;
  if (expiredRows) shutdown.add('expired dashboard rows', () => expiredRows.close());
  // Links in mails point here; the service's own URL is known once it listens.
  let publicUrl = config.dashboard.publicUrl ?? '';
  const operatorRoutes = async (scope: FastifyInstance) => {
    await accountAdminRoutes(scope, { accounts });
    await webhookAdminRoutes(scope, { db: database.db, queued: () => webhookRole?.poke() });
    await userAdminRoutes(scope, { users });
  };
  // The /v1 routes a dashboard session reaches (docs/dashboard-api.md, "The /v1 routes, on a session").
  const sessionV1Routes = async (scope: FastifyInstance) => {
    await webhookRoutes(scope, { webhooks, db: database.db });
    await walletRoutes(scope, { wallets });
    await policyRoutes(scope, { chains, db: database.db });
    await policyUsageRoutes(scope, { db: database.db });
    await usageRoutes(scope, { store: usageStore });
    await scope.register(async (status) => chainStatusRoutes(status, chainStatus));
  };
  const web = servesApi ? loadWebApp({ log: logger }) : undefined;
  const app = await buildServer({
    logger,
    metrics,
    ...(web ? { pageFallback: web.page } : {}),
    fastRoutes: servesApi
      ? rpcFastRoutes({ authenticator, restrictions, chains, limiter, metrics, rpcCache, usage, enhanced })
      : [],
    unroutedGuards: [
      { prefix: '/admin', guard: createAdminGuard(adminToken) },
      ...(servesApi ? [{ prefix: '/v1', guard: createUnroutedV1Guard({ authenticator, restrictions, limiter, metrics }) }] : []),
      ...(servesApi ? [{ prefix: dashboardApiPrefix, guard: setDashboardHeaders }] : []),
    ],
    corsOrigins: config.corsOrigins,
    keyCors: createKeyCors({ authenticator, restrictions }),
    trustProxy,
    bodyLimit: config.limits.maxBodyBytes,
    connectionCaps: { total: config.limits.maxConnections, perAddress: config.limits.maxConnectionsPerIp },
    plugins: [
      async (scope) =>
        operationsRoutes(scope, {
          health,
          metrics,
          metricsGuard: config.metricsRequireAdminToken ? createAdminGuard(adminToken) : undefined,
        }),
      async (scope) => {
        scope.addHook('onRequest', createAdminGuard(adminToken));
        await operatorRoutes(scope);
        await indexAdminRoutes(scope, { store: indexStore });
        // `GET /admin/chains`: the same plugin the dashboard mounts at /dashboard/api/chains.
        await scope.register(async (status) => chainStatusRoutes(status, chainStatus), { prefix: '/admin' });
      },
      async (scope) => {
        if (!servesApi || !mailer) return;
        await dashboardApi(scope, {
          db: database.db,
          accounts,
          users,
          sessions: createSessionStore(database.db),
          userTokens,
          invitations: createInvitationStore(database.db),
          signInLimits: createSignInLimits(database.db),
          emailVerifications: createEmailVerificationStore(database.db),
          mailRequests: createMailRequestLimits(database.db),
          usage: usageStore,
          mailer,
          logger,
          settings: config.dashboard,
          secureCookie: config.mode === 'production',
          publicUrl: () => publicUrl,
          v1Routes: sessionV1Routes,
          operatorRoutes,
        });
      },
      async (scope) => {
        if (!servesApi) return;
        // `POST /v1/rpc` is answered by the fast route above, before Fastify: a hook added to this scope
        // does not run for it unless it also goes into `authenticateV1` or `answerRpc`.
        scope.addHook('onRequest', createV1Guard({ authenticator, restrictions, limiter, metrics }));
        serveKeyInPathForms(scope);
        if (usage) scope.addHook('onResponse', createRestUsageHook({ usage, chains }));
        // Its own context: the JSON-RPC routes take the body as text, the REST routes beside them as JSON.
        await scope.register(async (rpcScope) => rpcRoutes(rpcScope, { chains, limiter, metrics, rpcCache, usage, enhanced }));
        await gasRoutes(scope, { chains, gas });
        await policyRoutes(scope, { chains, db: database.db });
        await sponsorRoutes(scope, { chains, db: database.db, sponsors });
        await policyUsageRoutes(scope, { db: database.db });
        await nftRoutes(scope, { chains, nfts });
        const v3 = createAlchemyV3Nfts({ nfts, reads: createNftIndexReads(database.db), gateways: config.nfts });
        await alchemyV3NftRoutes(scope, { chains, v3 });
        await tokenRoutes(scope, { chains, tokens });
        const tokenFacts = createTokenFactsLookup(tokens);
        await transferRoutes(scope, { chains, transfers: createTransferService({ db: database.db, tokenFacts }) });
        await webhookRoutes(scope, { webhooks, db: database.db });
        await walletRoutes(scope, { wallets });
        await bundlerRoutes(scope, {
          chains,
          bundler,
          paymaster: createErc7677Methods(sponsors),
          limiter,
          metrics,
          rpcCache,
          enhanced,
        });
        await usageRoutes(scope, { store: usageStore });
      },
      // The dashboard's pages at `/` (and every path no route above takes, but the API's).
      async (scope) => {
        if (web) await web.routes(scope);
      },
    ],
  });
  shutdown.add('http server', () => closeServer(app, config.shutdownGraceS * 1000, logger));
  // Registered after the HTTP server so it closes first: open WebSockets would hold the server's close.
  if (servesApi) {
    const ws = createWsEndpoint({
      ctx,
      server: app.server,
      authenticator,
      restrictions,
      trustProxy,
      limiter,
      chains,
      options: wsLimits(config.limits),
      enhanced,
    });
    shutdown.add('websocket endpoint', () => ws.close());
  }
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  publicUrl ||= url;

  const devKey =
    config.mode === 'development' && servesApi
      ? await ensureDevKey({ accounts, authenticator, dataDir: config.dataDir })
      : undefined;
  const devSignInUrl = devKey
    ? `${url}${signInLinkPath(
        await ensureDevUser({
          users,
          userTokens,
          accountId: (await authenticator.authenticate(devKey.key)).accountId,
        }),
      )}`
    : undefined;
  lock?.update({ url });
  logger.info({ url, roles: config.roles }, 'blockyard ready');

  // Started once the API listens, so a long backfill never delays readiness.
  indexers = config.roles.includes('indexer')
    ? startIndexers({
        ctx,
        chains,
        database,
        store: indexStore,
        publish: () => relay.poke(),
      })
    : [];

  return {
    ctx,
    url,
    adminToken,
    devKey,
    devSignInUrl,
    devnet,
    embeddedDatabaseUrl,
    ...(joined ? { joined } : {}),
    indexers,
    events,
    paymasters,
    sponsorshipSettler,
    ...(expiredRows ? { expiredRows } : {}),
    usage,
    stop: (reason = 'stop') => shutdown.run(reason),
  };
}
