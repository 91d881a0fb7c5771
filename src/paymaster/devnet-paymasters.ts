import { readFileSync } from 'node:fs';
import { type Address, concat, encodeAbiParameters, type Hex, pad } from 'viem';
import { readErc4337Artifact } from '../erc4337/contracts/artifacts.ts';
import { create2AddressOf, deployMissing, type PlannedDeployment } from '../erc4337/contracts/create2-deployment.ts';
import type { PaymasterVersion } from './paymaster-version.ts';

/** Which package's artifact: v0.6 from @account-abstraction/contracts 0.6.0, v0.7 from 0.7.0. */
const artifactVersion = { '0.6': 'v06', '0.7': 'v07' } as const;

let v08Bytecode: Hex | undefined;
/** v0.8: Blockyard's contracts/VerifyingPaymasterV08.sol, kept compiled beside the code (npm run generate). */
function verifyingPaymasterV08Bytecode(): Hex {
  v08Bytecode ??= (
    JSON.parse(readFileSync(new URL('./verifying-paymaster-v08.generated.json', import.meta.url), 'utf8')) as { bytecode: Hex }
  ).bytecode;
  return v08Bytecode;
}
const zeroSalt = pad('0x', { size: 32 });
/** The constructor checks the EntryPoint's ERC-165 interface and stores two immutables: ~1.2M gas. */
const paymasterGas = 3_000_000n;

/** The VerifyingPaymaster's creation code with its constructor arguments (entryPoint, verifyingSigner). */
export function verifyingPaymasterInitCode(version: PaymasterVersion, entryPoint: Address, signer: Address): Hex {
  return concat([
    version === '0.8'
      ? verifyingPaymasterV08Bytecode()
      : readErc4337Artifact(artifactVersion[version], 'VerifyingPaymaster').bytecode,
    encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [entryPoint, signer]),
  ]);
}

/**
 * Where the VerifyingPaymaster of `entryPoint` signed for by `signer` lands through the CREATE2
 * deployer with salt 0: the same address on every chain with that deployer and EntryPoint.
 */
export function verifyingPaymasterAddress(version: PaymasterVersion, entryPoint: Address, signer: Address): Address {
  return create2AddressOf(zeroSalt, verifyingPaymasterInitCode(version, entryPoint, signer));
}

export interface PaymasterToInstall {
  readonly version: PaymasterVersion;
  readonly entryPoint: Address;
  readonly signer: Address;
}

/**
 * Deploys each VerifyingPaymaster that is not there yet at its CREATE2 address on an anvil devnet
 * (after the EntryPoints: the constructor checks its EntryPoint). Answers the addresses, in order.
 *
 * @example
 * const [v06, v07] = await installVerifyingPaymasters(devnet.url, [{ version: '0.6', entryPoint, signer }, …]);
 */
export async function installVerifyingPaymasters(rpcUrl: string, paymasters: readonly PaymasterToInstall[]): Promise<Address[]> {
  const plan: PlannedDeployment[] = paymasters.map(({ version, entryPoint, signer }) => ({
    label: `VerifyingPaymaster ${version}`,
    address: verifyingPaymasterAddress(version, entryPoint, signer),
    salt: zeroSalt,
    gas: paymasterGas,
    initCode: () => verifyingPaymasterInitCode(version, entryPoint, signer),
  }));
  await deployMissing(rpcUrl, plan, 'the verifying paymasters');
  return plan.map((entry) => entry.address);
}
