import type { Devnet } from '../chains/devnet.ts';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { demoPricesOnDevnet } from '../demo/demo-prices.ts';
import { demoContractAddresses, deployDemo } from '../demo/deploy-demo.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import type { Indexer } from '../indexer/indexer.ts';
import { createNftService, type NftService } from '../nfts/service.ts';
import { createSpamService, type SpamService } from '../spam/service.ts';
import { createTokenService, type TokenService } from '../tokens/service.ts';
import { createDeploymentWatcher } from '../wallets/deployment-watcher.ts';
import { createWalletService, type WalletService } from '../wallets/service.ts';

export interface ChainData {
  readonly tokens: TokenService;
  readonly nfts: NftService;
  readonly wallets: WalletService;
  readonly spam: SpamService;
}

export interface ChainDataDeps {
  readonly database: OpenDatabase;
  readonly chains: ChainRegistry;
  readonly events: ChainEventBus;
  readonly devnet: Devnet | undefined;
  /** The indexers this process runs (started last, once the API listens). */
  readonly indexers: () => readonly Indexer[];
}

/** Tokens, NFTs and smart wallets, read from the index and the chains; `--demo` deploys its sample contracts here. */
export async function wireChainData(ctx: Context, deps: ChainDataDeps): Promise<ChainData> {
  const { config, logger, shutdown } = ctx;
  const { database, chains, events } = deps;
  const spam = createSpamService({
    db: database.db,
    config: config.spam,
    clientFor: publicClientsByNetwork(),
    logger: logger.child({ component: 'spam' }),
  });
  const tokens = createTokenService({ ctx, db: database.db, spam });
  if (config.demo) {
    if (!deps.devnet) throw new Error('--demo needs the embedded devnet (a config without chains:, or with `embedded: true`)');
    await deployDemo({ rpcUrl: deps.devnet.url, log: logger });
  }
  // The demo token's price comes with the demo's data (this run's or an earlier --demo run's), not with the flag.
  if (deps.devnet) {
    const { token } = await demoContractAddresses();
    for (const price of await demoPricesOnDevnet(deps.devnet.url, token)) tokens.addStaticPrice(price);
  }

  const nfts = createNftService({ db: database.db, config, chains, logger, spam });
  shutdown.add('nft metadata fetcher', () => nfts.close());
  const wallets = createWalletService({ db: database.db, chains });
  const watchDeployments = createDeploymentWatcher({
    db: database.db,
    entryPoints: entryPointsByNetwork(chains),
    logger,
  });
  // Minted tokens get their metadata fetched in the background, before anyone asks, and new wallets
  // are seen deployed: by the process that indexes the network (every process sees every event; one is enough).
  events.subscribe((batch) => {
    // What each process keeps in memory is its own to drop.
    nfts.cacheListener(batch);
    const mine = batch.filter((event) =>
      deps.indexers().some((indexer) => indexer.network === event.network && indexer.isRunning()),
    );
    if (mine.length === 0) return;
    nfts.fetcher.listener(mine);
    void watchDeployments(mine);
  });
  return { tokens, nfts, wallets, spam };
}

/** Each network's EntryPoint addresses (lower-case), by `chain/network`. */
function entryPointsByNetwork(chains: ChainRegistry): (network: string) => string[] {
  const entryPoints = new Map(
    chains
      .list()
      .map((network) => [
        `${network.config.chain}/${network.config.network}`,
        [
          network.config.erc4337.entryPointV06.toLowerCase(),
          network.config.erc4337.entryPointV07.toLowerCase(),
          network.config.erc4337.entryPointV08.toLowerCase(),
        ],
      ]),
  );
  return (network) => entryPoints.get(network) ?? [];
}
