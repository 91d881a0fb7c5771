import { type Address, concat, encodeAbiParameters, type Hex, pad } from 'viem';
import { compileContracts } from '../../contracts/compile.ts';
import { type EntryPointVersion, erc4337Addresses } from './abis.ts';
import { readErc4337Artifact } from './artifacts.ts';
import { deployMissing, type PlannedDeployment } from './create2-deployment.ts';

export interface Erc4337Deployment {
  v06: { entryPoint: Address; factory: Address; simple7702Account: Address };
  v07: { entryPoint: Address; factory: Address; simple7702Account: Address };
  v08: { entryPoint: Address; factory: Address; simple7702Account: Address };
}

/** The salts of the canonical EntryPoint v0.7 and v0.8 deployments; every other canonical one used salt 0. */
const entryPointV07Salt = '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3';
const entryPointV08Salt = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9';
const zeroSalt = pad('0x', { size: 32 });

/**
 * Gas used on anvil: 5.32M (EntryPoint v0.6), 3.65M (v0.7), 2.80M and 2.28M (their factories). The
 * deployer forwards all but 1/64 of what is left to CREATE2: limits well above that, and four of them
 * (30M) still fit anvil's default block.
 */
const entryPointGas = 10_000_000n;
const factoryGas = 5_000_000n;
/** Simple7702AccountV06 and V07 use ~0.7M. */
const accountGas = 1_500_000n;

const plan: readonly PlannedDeployment[] = [
  entryPoint('v06', zeroSalt),
  entryPoint('v07', entryPointV07Salt),
  entryPoint('v08', entryPointV08Salt),
  factory('v06'),
  factory('v07'),
  factory('v08'),
  {
    label: 'Simple7702AccountV06',
    address: erc4337Addresses.v06.simple7702Account,
    salt: zeroSalt,
    gas: accountGas,
    initCode: async () => (await compileContracts()).Simple7702AccountV06.bytecode,
  },
  {
    label: 'Simple7702AccountV07',
    address: erc4337Addresses.v07.simple7702Account,
    salt: zeroSalt,
    gas: accountGas,
    // Compiled from contracts/ (cached on disk after the first time): no constructor, no immutables.
    initCode: async () => (await compileContracts()).Simple7702AccountV07.bytecode,
  },
  {
    // eth-infinitism's own (its EntryPoint is a constant in the code): no constructor arguments.
    label: 'Simple7702Account v08',
    address: erc4337Addresses.v08.simple7702Account,
    salt: zeroSalt,
    gas: accountGas,
    initCode: () => readErc4337Artifact('v08', 'Simple7702Account').bytecode,
  },
];

function entryPoint(version: EntryPointVersion, salt: Hex): PlannedDeployment {
  return {
    label: `EntryPoint ${version}`,
    address: erc4337Addresses[version].entryPoint,
    salt,
    gas: entryPointGas,
    initCode: () => readErc4337Artifact(version, 'EntryPoint').bytecode,
  };
}

/** The factory's constructor creates its SimpleAccount implementation, bound (immutably) to the EntryPoint. */
function factory(version: EntryPointVersion): PlannedDeployment {
  return {
    label: `SimpleAccountFactory ${version}`,
    address: erc4337Addresses[version].factory,
    salt: zeroSalt,
    gas: factoryGas,
    initCode: () =>
      concat([
        readErc4337Artifact(version, 'SimpleAccountFactory').bytecode,
        encodeAbiParameters([{ type: 'address' }], [erc4337Addresses[version].entryPoint]),
      ]),
  };
}

/**
 * Deploys EntryPoint v0.6, v0.7 and v0.8 and their SimpleAccountFactory at their canonical addresses
 * on an anvil devnet, and the EIP-7702 account implementations for v0.7 (Blockyard's) and v0.8
 * (eth-infinitism's Simple7702Account), through the CREATE2 deployer (so constructors run and
 * immutables are right), from anvil's account #9. Contracts already there are left alone: a second
 * call only reads their codes.
 *
 * @example
 * const { v07 } = await installErc4337Contracts(devnet.url);
 */
export async function installErc4337Contracts(rpcUrl: string): Promise<Erc4337Deployment> {
  await deployMissing(rpcUrl, plan, 'the ERC-4337 contracts');
  return canonicalDeployment();
}

function canonicalDeployment(): Erc4337Deployment {
  return { v06: { ...erc4337Addresses.v06 }, v07: { ...erc4337Addresses.v07 }, v08: { ...erc4337Addresses.v08 } };
}
