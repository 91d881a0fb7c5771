import { type Address, getAddress } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { Network } from '../chains/registry.ts';
import type { Config } from '../config/schema.ts';
import { verifyingPaymasterAddress } from './devnet-paymasters.ts';
import type { PaymasterVersion } from './paymaster-version.ts';
import { sponsorKeyFor } from './sponsor-key.ts';

/** A VerifyingPaymaster Blockyard signs for: its EntryPoint, its address and the sponsor key. */
export interface PaymasterSetup {
  readonly version: PaymasterVersion;
  readonly entryPoint: Address;
  readonly address: Address;
  /** The sponsor key (the paymaster's verifyingSigner). Never logged. */
  readonly signer: PrivateKeyAccount;
}

export type PaymasterSetups = { readonly [version in PaymasterVersion]?: PaymasterSetup };

/**
 * The paymasters of a network, by EntryPoint version: the addresses its `erc4337.paymaster_v06` /
 * `paymaster_v07` / `paymaster_v08` name, or on the embedded devnet those `installDevnetPaymasters` puts there for the
 * sponsor key. A version without an address, a network without a sponsor key and a non-EVM network
 * have none. Reads `gas.sponsor_key_file` when set: call it once per network at start.
 *
 * @example
 * const { '0.7': v07 } = paymasterSetupsOf(network, config);
 */
export function paymasterSetupsOf(network: Pick<Network, 'config'>, config: Pick<Config, 'gas'>): PaymasterSetups {
  const chain = network.config;
  if (chain.kind !== 'evm') return {};
  const key = sponsorKeyFor(chain, config.gas);
  if (!key) return {};
  const signer = privateKeyToAccount(key);
  const setupFor = (version: PaymasterVersion, entryPoint: string, configured: string | undefined) => {
    const address =
      configured ?? (chain.embedded ? verifyingPaymasterAddress(version, getAddress(entryPoint), signer.address) : undefined);
    return address ? { version, entryPoint: getAddress(entryPoint), address: getAddress(address), signer } : undefined;
  };
  const v06 = setupFor('0.6', chain.erc4337.entryPointV06, chain.erc4337.paymasterV06);
  const v07 = setupFor('0.7', chain.erc4337.entryPointV07, chain.erc4337.paymasterV07);
  const v08 = setupFor('0.8', chain.erc4337.entryPointV08, chain.erc4337.paymasterV08);
  return { ...(v06 ? { '0.6': v06 } : {}), ...(v07 ? { '0.7': v07 } : {}), ...(v08 ? { '0.8': v08 } : {}) };
}
