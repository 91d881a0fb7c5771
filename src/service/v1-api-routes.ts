import type { FastifyInstance } from 'fastify';
import { bundlerRoutes } from '../bundler/routes.ts';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import { chainStatusRoutes } from '../chains/status-routes.ts';
import type { Context } from '../context/context.ts';
import { l1FeeOraclesByNetwork } from '../gas/l1-fee/l1-fee-oracle.ts';
import { gasRoutes } from '../gas/routes.ts';
import { createGasPriceService } from '../gas/service.ts';
import { serveKeyInPathForms } from '../http/key-in-path-routes.ts';
import { createV1Guard } from '../http/v1-guard.ts';
import { readIndexStatus } from '../indexer/index-status.ts';
import { alchemyV3AttributeRoutes } from '../nfts/alchemy-v3/attribute-routes.ts';
import { createV3Attributes } from '../nfts/alchemy-v3/attributes.ts';
import { alchemyV3NftBatchRoutes } from '../nfts/alchemy-v3/batch-routes.ts';
import { alchemyV3ReportSpamRoute } from '../nfts/alchemy-v3/report-spam-route.ts';
import { alchemyV3NftRoutes } from '../nfts/alchemy-v3/routes.ts';
import { createAlchemyV3Nfts } from '../nfts/alchemy-v3/service.ts';
import { createNftIndexReads } from '../nfts/index-reads.ts';
import { nftRoutes } from '../nfts/routes.ts';
import { rpcRoutes } from '../rpc/routes.ts';
import { createErc7677Methods } from '../sponsorship/erc7677.ts';
import { policyRoutes } from '../sponsorship/policy-routes.ts';
import { policyUsageRoutes } from '../sponsorship/policy-usage-routes.ts';
import { sponsorRoutes } from '../sponsorship/sponsor-routes.ts';
import { tokenRoutes } from '../tokens/routes.ts';
import { createTokenFactsLookup } from '../tokens/token-facts.ts';
import { transferRoutes } from '../transfers/routes.ts';
import { createTransferService } from '../transfers/service.ts';
import { createRestUsageHook } from '../usage/rest-usage.ts';
import { usageRoutes } from '../usage/routes.ts';
import { walletRoutes } from '../wallets/routes.ts';
import { alchemyNotifyRoutes } from '../webhooks/alchemy-notify-routes.ts';
import { alchemyNotifyWebhookRoutes } from '../webhooks/alchemy-notify-webhook-routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { networkFirst } from './network-first.ts';
import type { ServiceParts } from './service-parts.ts';

/** What `GET /v1/chains` (and `/admin/chains`, `/dashboard/api/chains`) reports. */
export function chainStatusOf(parts: ServiceParts) {
  return { chains: parts.upstreams.chains, indexProgress: () => readIndexStatus(parts.indexStore, parts.backfillStore) };
}

/** The /v1 routes a dashboard session reaches (docs/dashboard-api.md, "The /v1 routes, on a session"). */
export function sessionV1Routes(parts: ServiceParts) {
  const { database, upstreams, chainData, webhooks, usage } = parts;
  const { chains } = upstreams;
  return async (scope: FastifyInstance) => {
    await webhookRoutes(scope, { webhooks: webhooks.webhooks, db: database.db });
    await walletRoutes(scope, { wallets: chainData.wallets });
    await policyRoutes(scope, { chains, db: database.db });
    await policyUsageRoutes(scope, { db: database.db });
    await usageRoutes(scope, { store: usage.store });
    await scope.register(async (status) => chainStatusRoutes(status, chainStatusOf(parts)));
  };
}

/** The key-authenticated API at /v1 (but `POST /v1/rpc`, answered by the fast route before Fastify). */
export function v1ApiRoutes(ctx: Context, parts: ServiceParts) {
  const { metrics } = ctx;
  const { database, upstreams, access, chainData, sponsorship, enhanced, dataQueries } = parts;
  const { authenticator, restrictions } = access;
  const { chains, limiter, rpcCache } = upstreams;
  const { tokens, nfts } = chainData;
  const usage = parts.usage.recorder;
  const gas = createGasPriceService({
    send: (network, body, need) => network.pool.send(body, need),
    l1FeeOf: l1FeeOraclesByNetwork(publicClientsByNetwork()),
  });
  return async (scope: FastifyInstance) => {
    // `POST /v1/rpc` is answered by the fast route, before Fastify: a hook added to this scope
    // does not run for it unless it also goes into `authenticateV1` or `answerRpc`.
    scope.addHook('onRequest', createV1Guard({ authenticator, restrictions, limiter, metrics, dataQueries }));
    serveKeyInPathForms(scope);
    scope.addHook('preParsing', networkFirst(chains));
    if (usage) scope.addHook('onResponse', createRestUsageHook({ usage, chains }));
    // Its own context: the JSON-RPC routes take the body as text, the REST routes beside them as JSON.
    await scope.register(async (rpcScope) =>
      rpcRoutes(rpcScope, { chains, limiter, metrics, rpcCache, usage, enhanced, dataQueries }),
    );
    await gasRoutes(scope, { chains, gas });
    await policyRoutes(scope, { chains, db: database.db });
    await sponsorRoutes(scope, { chains, db: database.db, sponsors: sponsorship.sponsors });
    await policyUsageRoutes(scope, { db: database.db });
    await nftRoutes(scope, { chains, nfts });
    const nftReads = createNftIndexReads(database.db);
    const v3 = createAlchemyV3Nfts({ nfts, reads: nftReads, gateways: ctx.config.nfts });
    await alchemyV3NftRoutes(scope, { chains, v3 });
    await alchemyV3AttributeRoutes(scope, { chains, attributes: createV3Attributes({ nfts, reads: nftReads }) });
    await alchemyV3NftBatchRoutes(scope, { chains, v3, limiter, metrics });
    await alchemyV3ReportSpamRoute(scope, { chains, reports: chainData.spam.reports });
    await tokenRoutes(scope, { chains, tokens });
    const tokenFacts = createTokenFactsLookup(tokens);
    const spamContractsOf = async (network: Network, address: string) => {
      const [tokenSpam, nftSpam] = await Promise.all([
        tokens.spamContractsOf(network, address),
        nfts.spam.excludedFromTransfersOf(network, address),
      ]);
      return [...tokenSpam, ...nftSpam];
    };
    await transferRoutes(scope, {
      chains,
      transfers: createTransferService({ db: database.db, tokenFacts, spamContractsOf }),
    });
    await webhookRoutes(scope, { webhooks: parts.webhooks.webhooks, db: database.db });
    await alchemyNotifyRoutes(scope, { webhooks: parts.webhooks.webhooks });
    await alchemyNotifyWebhookRoutes(scope, { webhooks: parts.webhooks.webhooks, chains });
    await walletRoutes(scope, { wallets: chainData.wallets });
    const paymaster = createErc7677Methods(sponsorship.sponsors);
    // Its own context too: it reads JSON whatever the Content-Type, as /v1/rpc does.
    await scope.register(async (bundlerScope) =>
      bundlerRoutes(bundlerScope, {
        chains,
        bundler: parts.bundler,
        paymaster,
        limiter,
        metrics,
        rpcCache,
        enhanced,
        dataQueries,
      }),
    );
    await usageRoutes(scope, { store: parts.usage.store });
  };
}
