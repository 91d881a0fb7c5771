import {
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type LocalAccount,
  type TransactionReceipt,
} from 'viem';
import { getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import {
  entryPointV06Abi,
  entryPointV07Abi,
  erc4337Addresses,
  simpleAccountFactoryAbi,
  simpleAccountV06Abi,
  simpleAccountV07Abi,
} from '../../src/erc4337/contracts/abis.ts';

/** anvil's account #1, standing in for a bundler's executor: it sends handleOps. */
export const executorAccount = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/** Gas limits and fees enough for a SimpleAccount's deployment and one call, on anvil. */
export const firstOperationGas = {
  callGasLimit: 100_000n,
  verificationGasLimit: 600_000n,
  preVerificationGas: 60_000n,
  maxFeePerGas: 20_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
} as const;

export interface FirstOperation {
  /** The SimpleAccount's owner, who signs. */
  owner: LocalAccount;
  /** The (counterfactual) account: the factory's getAddress(owner, salt). */
  sender: Address;
  salt: bigint;
  nonce: bigint;
  /** What the account's `execute` sends: `value` wei to `to`, no data. */
  to: Address;
  value: bigint;
}

/** `factory.createAccount(owner, salt)`, the call that deploys a SimpleAccount. */
export function createAccountCall(owner: Address, salt: bigint): Hex {
  return encodeFunctionData({ abi: simpleAccountFactoryAbi, functionName: 'createAccount', args: [owner, salt] });
}

/** An account's first v0.7 UserOperation, signed: deploys it through the v0.7 factory and runs its call. */
export async function firstUserOperationV07(first: FirstOperation): Promise<{ op: UserOperation<'0.7'>; hash: Hex }> {
  const { factory } = erc4337Addresses.v07;
  const unsigned: UserOperation<'0.7'> = {
    sender: first.sender,
    nonce: first.nonce,
    factory,
    factoryData: createAccountCall(first.owner.address, first.salt),
    callData: encodeFunctionData({ abi: simpleAccountV07Abi, functionName: 'execute', args: [first.to, first.value, '0x'] }),
    ...firstOperationGas,
    signature: '0x',
  };
  return signed('v07', unsigned, first.owner);
}

/** An account's first v0.6 UserOperation, signed: deploys it through the v0.6 factory (initCode) and runs its call. */
export async function firstUserOperationV06(first: FirstOperation) {
  const { factory } = erc4337Addresses.v06;
  const unsigned = {
    sender: first.sender,
    nonce: first.nonce,
    initCode: concat([factory, createAccountCall(first.owner.address, first.salt)]),
    callData: encodeFunctionData({ abi: simpleAccountV06Abi, functionName: 'execute', args: [first.to, first.value, '0x'] }),
    ...firstOperationGas,
    paymasterAndData: '0x',
    signature: '0x',
  } as const satisfies UserOperation<'0.6'>;
  return signed('v06', unsigned, first.owner);
}

/** `unsigned` signed by `owner` (a SimpleAccount's signature: the owner's over the UserOperation hash), and that hash. */
async function signed<Op extends UserOperation<'0.6'> | UserOperation<'0.7'>>(
  version: 'v06' | 'v07',
  unsigned: Op,
  owner: LocalAccount,
): Promise<{ op: Op; hash: Hex }> {
  const hash = getUserOperationHash({
    userOperation: unsigned,
    entryPointAddress: erc4337Addresses[version].entryPoint,
    entryPointVersion: version === 'v06' ? '0.6' : '0.7',
    chainId: foundry.id,
  } as Parameters<typeof getUserOperationHash>[0]);
  return { op: { ...unsigned, signature: await owner.signMessage({ message: { raw: hash } }) }, hash };
}

/** A v0.6 UserOperation with every field present, as the v0.6 EntryPoint takes it. */
export type UserOperationV06 = Awaited<ReturnType<typeof firstUserOperationV06>>['op'];

/**
 * Sends `op` in its version's EntryPoint's handleOps from the executor (as a bundler would, the
 * executor the beneficiary), and waits for the receipt.
 */
export async function handleOps(
  rpcUrl: string,
  op: { version: 'v06'; op: UserOperationV06 } | { version: 'v07'; op: UserOperation<'0.7'> },
): Promise<TransactionReceipt> {
  const transport = http(rpcUrl, { timeout: 10_000, retryCount: 0 });
  const wallet = createWalletClient({ account: executorAccount, chain: foundry, transport });
  const publicClient = createPublicClient({ chain: foundry, transport });
  const txHash =
    op.version === 'v07'
      ? await wallet.writeContract({
          address: erc4337Addresses.v07.entryPoint,
          abi: entryPointV07Abi,
          functionName: 'handleOps',
          args: [[toPackedUserOperation(op.op)], executorAccount.address],
          gas: 2_000_000n,
        })
      : await wallet.writeContract({
          address: erc4337Addresses.v06.entryPoint,
          abi: entryPointV06Abi,
          functionName: 'handleOps',
          args: [[op.op], executorAccount.address],
          gas: 2_000_000n,
        });
  return publicClient.waitForTransactionReceipt({ hash: txHash, timeout: 10_000, pollingInterval: 50 });
}
