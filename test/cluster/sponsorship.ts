import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { parse, stringify } from 'yaml';
import { verifyingPaymasterAddress } from '../../src/paymaster/devnet-paymasters.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';

/** anvil's #4, the devnets' sponsor (never a key the load sends from). */
export const sponsorKey = devnetSponsorKey;

/**
 * Gas sponsorship for the run: deploy/blockyard.yaml configures none (it needs a paymaster of your
 * own), but the dashboard's paymaster panel needs one to show. A v0.7 VerifyingPaymaster for the
 * sponsor key is deployed, staked and funded on the run's anvil, and the run's copy of the settings
 * names it; the nodes get BLOCKYARD_SPONSOR_KEY.
 */
export async function addPaymaster(chainUrl: string, configFile: string, runDir: string): Promise<string> {
  const signer = privateKeyToAccount(sponsorKey);
  const entryPoint = getAddress(entryPoint07Address);
  const address = verifyingPaymasterAddress('0.7', entryPoint, signer.address);
  await installDevnetPaymasters(chainUrl, { '0.7': { version: '0.7', entryPoint, address, signer } });
  const settings = parse(readFileSync(configFile, 'utf8')) as { chains: { erc4337?: Record<string, string> }[] };
  for (const chain of settings.chains) chain.erc4337 = { ...chain.erc4337, paymaster_v07: address };
  const file = join(runDir, 'blockyard.sponsored.yaml');
  writeFileSync(file, stringify(settings));
  return file;
}
