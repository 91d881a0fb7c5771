import { join } from 'node:path';
import { type Devnet, startDevnet } from '../chains/devnet.ts';
import type { ChainConfig, UpstreamConfig } from '../config/chain-settings.ts';
import type { Context } from '../context/context.ts';
import { installMulticall3 } from '../contracts/install-multicall3.ts';
import { installErc4337Contracts } from '../erc4337/contracts/install.ts';
import type { LivenessProbe } from '../health/health-check.ts';
import { installDevnetPaymasters } from '../paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../paymaster/paymaster-setup.ts';
import type { ServiceStorage } from './wire-storage.ts';

export interface EmbeddedChain {
  /** The devnet this process runs (absent when it joined one, or the config has no embedded chain). */
  readonly devnet?: Devnet;
  /** The embedded chain's upstream: this process's devnet, or the joined service's. */
  readonly upstream?: UpstreamConfig;
}

/**
 * The embedded chain's devnet: the joined service's, or anvil started here with the contracts every
 * feature expects at their usual addresses. Its liveness goes into `probes` (the health check).
 */
export async function wireDevnet(
  ctx: Context,
  storage: Pick<ServiceStorage, 'joined' | 'lock'>,
  probes: LivenessProbe[],
): Promise<EmbeddedChain> {
  const { config, logger, shutdown } = ctx;
  const embedded = config.chains.find((chain) => chain.embedded);
  if (!embedded) return {};
  if (storage.joined) return { upstream: storage.joined.devnet };
  const devnet = await startDevnet({
    dir: join(config.dataDir, 'devnet'),
    blockTimeS: embedded.blockTimeS,
    chainId: embedded.chainId,
    logger,
  });
  shutdown.add('devnet', () => devnet.stop());
  storage.lock?.update({ devnet: { url: devnet.url, wsUrl: devnet.wsUrl } });
  probes.push({ name: 'devnet process', alive: () => devnet.alive });
  await installDevnetContracts(ctx, embedded, devnet.url);
  logger.info({ chain: `${embedded.chain}/${embedded.network}`, url: devnet.url }, 'embedded devnet (anvil) running');
  return { devnet, upstream: { url: devnet.url, wsUrl: devnet.wsUrl } };
}

async function installDevnetContracts(ctx: Context, embedded: ChainConfig, url: string): Promise<void> {
  // Token balances are read with Multicall3, which every public chain has at its usual address.
  await installMulticall3(url);
  // ERC-4337: EntryPoint v0.6 and v0.7 and their SimpleAccountFactory, at the canonical addresses.
  await installErc4337Contracts(url);
  // Gas sponsorship: VerifyingPaymaster v0.6 and v0.7 for the sponsor key, staked and funded.
  await installDevnetPaymasters(url, paymasterSetupsOf({ config: embedded }, ctx.config));
}
