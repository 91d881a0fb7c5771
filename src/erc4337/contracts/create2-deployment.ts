import {
  type Address,
  BaseError,
  concat,
  createPublicClient,
  createWalletClient,
  getContractAddress,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** The deterministic deployment proxy that anvil (and most chains) have: calldata = salt ++ initCode. */
export const create2DeployerAddress = '0x4e59b44847b379578588920ca78fbf26c0b4956c' as const;

/** anvil's account #9: #0 is the one users send from, #1-#3 are the bundler's executors, #4 the gas sponsor. */
export const devnetInstaller = privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6');

/** Transactions sent at once are mined at once (automine) or in the devnet's next block. */
const receiptTimeoutMs = 60_000;

/** One contract to put at its CREATE2 address through the deployment proxy. */
export interface PlannedDeployment {
  readonly label: string;
  /** Where it must land: checked against salt and init code before anything is sent. */
  readonly address: Address;
  readonly salt: Hex;
  /** The deployer forwards all but 1/64 of what is left to CREATE2: well above what the constructor uses. */
  readonly gas: bigint;
  /** Creation code with its constructor arguments. */
  initCode(): Hex | Promise<Hex>;
}

/** The CREATE2 address of `initCode` with `salt` through the deployment proxy. */
export function create2AddressOf(salt: Hex, initCode: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: create2DeployerAddress, salt, bytecode: initCode });
}

export function rpcClients(rpcUrl: string) {
  const transport = http(rpcUrl, { timeout: 10_000, retryCount: 0 });
  return {
    publicClient: createPublicClient({ transport }) as PublicClient,
    wallet: createWalletClient({ account: devnetInstaller, transport }),
  };
}

export async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  return ((await client.getCode({ address })) ?? '0x') !== '0x';
}

/**
 * Deploys the planned contracts that have no code yet, from anvil's account #9 through the CREATE2
 * deployer (so constructors run and immutables are right), all at once with consecutive nonces, in
 * the plan's order. Answers the labels deployed (none when everything was there: only codes are read).
 */
export async function deployMissing(rpcUrl: string, plan: readonly PlannedDeployment[], what: string): Promise<string[]> {
  const { publicClient, wallet } = rpcClients(rpcUrl);
  const present = await Promise.all(plan.map((entry) => hasCode(publicClient, entry.address)));
  const missing = plan.filter((_, index) => !present[index]);
  if (missing.length === 0) return [];

  if (!(await hasCode(publicClient, create2DeployerAddress))) {
    throw new Error(`Cannot install ${what}: no CREATE2 deployer at ${create2DeployerAddress}`);
  }
  const initCodes = await Promise.all(missing.map((entry) => entry.initCode()));
  const transactions = missing.map((entry, index) => {
    const initCode = initCodes[index]!;
    const actual = create2AddressOf(entry.salt, initCode);
    if (actual !== entry.address) {
      throw new Error(`${entry.label} would be deployed at ${actual}, not at its expected address ${entry.address}`);
    }
    return { entry, data: concat([entry.salt, initCode]) };
  });

  const nonce = await publicClient.getTransactionCount({ address: devnetInstaller.address, blockTag: 'pending' });
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
    if (receipt.status !== 'success' || !(await hasCode(publicClient, entry.address))) {
      throw new Error(
        `Deploying ${entry.label} to ${entry.address} failed (transaction ${receipt.transactionHash}, gas used ${receipt.gasUsed})`,
      );
    }
  }
  return missing.map((entry) => entry.label);
}

/** viem's own messages quote the whole calldata (~50 KB of bytecode here): keep its short message only. */
export function failed(what: string, error: unknown): never {
  const reason = error instanceof BaseError ? error.details || error.shortMessage : String(error);
  throw new Error(`${what} failed: ${reason}`);
}
