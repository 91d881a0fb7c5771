import { type BundleLoop, startBundleLoop } from '../bundler/bundle-loop.ts';
import { type BundlerService, createBundlerService } from '../bundler/bundler-service.ts';
import { executorKeysFor } from '../bundler/executor-keys.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import type { RpcCache } from '../rpc/cache/rpc-cache.ts';

export interface WireBundlerDeps {
  readonly database: OpenDatabase;
  readonly chains: ChainRegistry;
  readonly rpcCache: RpcCache;
}

/** The bundler's API service, and (role `bundler`) a bundle loop per network with executor keys. */
export function wireBundler(ctx: Context, deps: WireBundlerDeps): BundlerService {
  const bundleLoops = new Map<string, BundleLoop>();
  const bundler = createBundlerService({
    db: deps.database.db,
    queued: (network) => bundleLoops.get(network)?.poke(),
    loopOf: (network) => bundleLoops.get(network),
  });
  if (!ctx.config.roles.includes('bundler')) return bundler;
  for (const network of deps.chains.list()) {
    if (network.config.kind !== 'evm' || !network.config.bundler.enabled) continue;
    const loop = startNetworkBundleLoop(ctx, deps, network);
    if (loop) bundleLoops.set(`${network.config.chain}/${network.config.network}`, loop);
  }
  return bundler;
}

function startNetworkBundleLoop(ctx: Context, deps: WireBundlerDeps, network: Network): BundleLoop | undefined {
  const { config, logger, metrics, shutdown } = ctx;
  const name = `${network.config.chain}/${network.config.network}`;
  const executorKeys = executorKeysFor(network.config, config.bundlerKeys);
  if (executorKeys.length === 0) {
    logger.warn(
      { network: name },
      'bundler enabled without executor keys (executor_keys_file or BLOCKYARD_BUNDLER_KEYS): not bundling',
    );
    return undefined;
  }
  const loop = startBundleLoop({
    db: deps.database.db,
    databaseUrl: deps.database.url,
    network,
    executorKeys,
    maxBundleOps: network.config.bundler.maxBundleOps,
    logger,
    registry: metrics.registry,
    chainChanged: () => deps.rpcCache.chainChanged(network),
  });
  shutdown.add(`bundler ${name}`, () => loop.close());
  return loop;
}
