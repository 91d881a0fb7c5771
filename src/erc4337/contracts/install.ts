import {
  type Address,
  BaseError,
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  http,
  pad,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { compileContracts } from '../../contracts/compile.ts';
import { type EntryPointVersion, erc4337Addresses } from './abis.ts';
import { readErc4337Artifact } from './artifacts.ts';

export interface Erc4337Deployment {
  v06: { entryPoint: Address; factory: Address };
  v07: { entryPoint: Address; factory: Address; simple7702Account: Address };
}

/** The deterministic deployment proxy that anvil (and most chains) have: calldata = salt ++ initCode. */
export const create2DeployerAddress = '0x4e59b44847b379578588920ca78fbf26c0b4956c' as const;

/** The salt of the canonical EntryPoint v0.7 deployment; every other canonical one used salt 0. */
const entryPointV07Salt = '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3';
const zeroSalt = pad('0x', { size: 32 });

/** anvil's account #9: #0 is the one users send from, #1-#3 are the bundler's executors. */
const installer = privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6');

/**
 * Gas used on anvil: 5.32M (EntryPoint v0.6), 3.65M (v0.7), 2.80M and 2.28M (their factories). The
 * deployer forwards all but 1/64 of what is left to CREATE2: limits well above that, and four of them
 * (30M) still fit anvil's default block.
 */
const entryPointGas = 10_000_000n;
const factoryGas = 5_000_000n;
/** Simple7702AccountV07 uses ~0.7M. */
const accountGas = 1_500_000n;
/** Five transactions, mined at once (automine) or in the devnet's next block. */
const receiptTimeoutMs = 60_000;

interface PlannedDeployment {
  label: string;
  address: Address;
  salt: Hex;
  gas: bigint;
  initCode(): Hex | Promise<Hex>;
}

const plan: readonly PlannedDeployment[] = [
  entryPoint('v06', zeroSalt),
  entryPoint('v07', entryPointV07Salt),
  factory('v06'),
  factory('v07'),
  {
    label: 'Simple7702AccountV07',
    address: erc4337Addresses.v07.simple7702Account,
    salt: zeroSalt,
    gas: accountGas,
    // Compiled from contracts/ (cached on disk after the first time): no constructor, no immutables.
    initCode: async () => (await compileContracts()).Simple7702AccountV07.bytecode,
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
 * Deploys EntryPoint v0.6 and v0.7 and their SimpleAccountFactory at their canonical addresses on an
 * anvil devnet, and the EIP-7702 account implementation for v0.7, through the CREATE2 deployer (so
 * constructors run and immutables are right), from anvil's account #9. Contracts already there are
 * left alone: a second call only reads five codes.
 *
 * @example
 * const { v07 } = await installErc4337Contracts(devnet.url);
 */
export async function installErc4337Contracts(rpcUrl: string): Promise<Erc4337Deployment> {
  const transport = http(rpcUrl, { timeout: 10_000, retryCount: 0 });
  const publicClient = createPublicClient({ transport });
  const hasCode = async (address: Address) => ((await publicClient.getCode({ address })) ?? '0x') !== '0x';

  const present = await Promise.all(plan.map((entry) => hasCode(entry.address)));
  const missing = plan.filter((_, index) => !present[index]);
  if (missing.length === 0) return canonicalDeployment();

  if (!(await hasCode(create2DeployerAddress))) {
    throw new Error(`Cannot install the ERC-4337 contracts: no CREATE2 deployer at ${create2DeployerAddress}`);
  }
  const initCodes = await Promise.all(missing.map((entry) => entry.initCode()));
  const transactions = missing.map((entry, index) => {
    const initCode = initCodes[index]!;
    const actual = getContractAddress({ opcode: 'CREATE2', from: create2DeployerAddress, salt: entry.salt, bytecode: initCode });
    if (actual !== entry.address) {
      throw new Error(`${entry.label} would be deployed at ${actual}, not at its canonical address ${entry.address}`);
    }
    return { entry, data: concat([entry.salt, initCode]) };
  });

  // All at once with consecutive nonces: on a devnet with a block time they share one block.
  const wallet = createWalletClient({ account: installer, transport });
  const nonce = await publicClient.getTransactionCount({ address: installer.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const [index, { entry, data }] of transactions.entries()) {
    const send = wallet.sendTransaction({ chain: null, to: create2DeployerAddress, data, gas: entry.gas, nonce: nonce + index });
    hashes.push(await send.catch((error: unknown) => failed(`Sending the deployment of ${entry.label}`, error)));
  }
  const receipts = await Promise.all(
    hashes.map((hash, index) =>
      publicClient
        .waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs, pollingInterval: 100 })
        .catch((error: unknown) => failed(`Waiting for the deployment of ${transactions[index]!.entry.label} (${hash})`, error)),
    ),
  );
  for (const [index, receipt] of receipts.entries()) {
    const { entry } = transactions[index]!;
    if (receipt.status !== 'success' || !(await hasCode(entry.address))) {
      throw new Error(
        `Deploying ${entry.label} to ${entry.address} failed (transaction ${receipt.transactionHash}, gas used ${receipt.gasUsed})`,
      );
    }
  }
  return canonicalDeployment();
}

/** viem's own messages quote the whole calldata (~50 KB of bytecode here): keep its short message only. */
function failed(what: string, error: unknown): never {
  const reason = error instanceof BaseError ? error.details || error.shortMessage : String(error);
  throw new Error(`${what} failed: ${reason}`);
}

function canonicalDeployment(): Erc4337Deployment {
  return { v06: { ...erc4337Addresses.v06 }, v07: { ...erc4337Addresses.v07 } };
}
