import { fundDevnetPaymasters } from './devnet-paymaster-funding.ts';
import { installVerifyingPaymasters, verifyingPaymasterAddress } from './devnet-paymasters.ts';
import type { PaymasterSetup, PaymasterSetups } from './paymaster-setup.ts';

/**
 * The embedded devnet's verifying paymasters, after the EntryPoints: deployed at their CREATE2
 * addresses for the sponsor key, owned by anvil's #9, staked and funded. Idempotent: on a devnet
 * that has them (a restart keeps anvil's state) it only reads. A paymaster the config names at
 * another address is left as it is.
 *
 * @example
 * await installDevnetPaymasters(devnet.url, paymasterSetupsOf({ config: embedded }, config));
 */
export async function installDevnetPaymasters(rpcUrl: string, setups: PaymasterSetups): Promise<PaymasterSetup[]> {
  const ours = Object.values(setups).filter(
    (setup): setup is PaymasterSetup =>
      setup !== undefined && setup.address === verifyingPaymasterAddress(setup.version, setup.entryPoint, setup.signer.address),
  );
  if (ours.length === 0) return [];
  await installVerifyingPaymasters(
    rpcUrl,
    ours.map(({ version, entryPoint, signer }) => ({ version, entryPoint, signer: signer.address })),
  );
  await fundDevnetPaymasters(rpcUrl, ours);
  return ours;
}
