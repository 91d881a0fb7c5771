import { toSimpleSmartAccount } from 'permissionless/accounts';
import type { Address, PublicClient } from 'viem';
import { entryPoint06Address, entryPoint07Address, entryPoint08Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Network } from '../../src/chains/registry.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { verifyingPaymasterAddress } from '../../src/paymaster/devnet-paymasters.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { type PaymasterSetups, paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';

export const sponsorAddress: Address = privateKeyToAccount(devnetSponsorKey).address;

/** The devnet paymasters of the sponsor key (anvil's #4) at the canonical EntryPoints. */
export const devnetPaymasters = {
  v06: verifyingPaymasterAddress('0.6', entryPoint06Address, sponsorAddress),
  v07: verifyingPaymasterAddress('0.7', entryPoint07Address, sponsorAddress),
  v08: verifyingPaymasterAddress('0.8', entryPoint08Address, sponsorAddress),
} as const;

export interface SponsoredChain {
  chain: IndexedChain;
  /** An API key with every scope. */
  key: string;
  setups: PaymasterSetups;
}

/**
 * The service with its bundler on a test anvil that has the ERC-4337 contracts and the verifying
 * paymasters (installed, staked and funded as on the embedded devnet), which the chain config names,
 * and the sponsor key set (BLOCKYARD_SPONSOR_KEY's setting).
 */
export async function startSponsoredChain(options: { upstreamWs?: boolean } = {}): Promise<SponsoredChain> {
  const chain = await startIndexedChain({
    ...options,
    settings: { bundler_keys: devnetExecutorKeys[0], sponsor_key: devnetSponsorKey },
    chainSettings: {
      bundler: { enabled: true },
      erc4337: { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 },
    },
  });
  await installErc4337Contracts(chain.service.anvil.url);
  const network = { config: chain.service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
  const setups = paymasterSetupsOf(network, chain.service.service.ctx.config);
  await installDevnetPaymasters(chain.service.anvil.url, setups);
  const { key } = await chain.service.createKey();
  return { chain, key, setups };
}

/** A SimpleAccount of a fresh owner (nonce key 0), not deployed and without any ETH. */
export async function newEmptyAccount(publicClient: PublicClient, version: '0.6' | '0.7') {
  return toSimpleSmartAccount({
    client: publicClient,
    owner: privateKeyToAccount(generatePrivateKey()),
    entryPoint: { address: version === '0.7' ? entryPoint07Address : entryPoint06Address, version },
    nonceKey: 0n,
  });
}
