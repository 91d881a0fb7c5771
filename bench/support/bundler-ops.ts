// One UserOperation through a bundler, timed the way a wallet sees it: a SimpleAccount v0.7 or v0.8
// (permissionless `toSimpleSmartAccount`, nonce key 0) builds the op; eth_estimateUserOperationGas and
// eth_sendUserOperation go to the bundler as raw JSON-RPC, naming the account's own EntryPoint (so only
// the bundler's answer is timed); the op is sent with exactly the limits the bundler estimated;
// eth_getUserOperationReceipt is polled. v0.7 and v0.8 ops have the same shape on the wire (packed in
// the EntryPoint the same way); v0.8's hash, which the owner signs, is EIP-712 typed data.
import { type ToSimpleSmartAccountReturnType, toSimpleSmartAccount } from 'permissionless/accounts';
import { type Address, type Hex, hexToBigInt, type PublicClient, parseEther, type WalletClient } from 'viem';
import {
  entryPoint07Address,
  entryPoint08Address,
  formatUserOperationRequest,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export type OpKind = 'deploy' | 'plain';

export interface BundlerTarget {
  name: string;
  rpcUrl: string;
  headers: Record<string, string>;
}

export type BenchAccount = ToSimpleSmartAccountReturnType<'0.7'>;
export type BenchAccountV08 = ToSimpleSmartAccountReturnType<'0.8'>;
/** The EntryPoint versions the ops of the bundler benchmark use. */
export type OpVersion = '0.7' | '0.8';
export const opVersions: readonly OpVersion[] = ['0.7', '0.8'];

export interface OpSample {
  bundler: string;
  kind: OpKind;
  /** The EntryPoint the op was sent to, and its version. */
  entryPoint: Address;
  version: OpVersion;
  sender: Address;
  estimateMs: number;
  sendMs: number;
  /** Start of the eth_sendUserOperation request -> the first non-null eth_getUserOperationReceipt. */
  receiptMs: number;
  /** performance.now() at the send's start and when the receipt was first seen. */
  sendAt: number;
  receiptAt: number;
  /** Date.now() when the send was answered (to compare with the service's log times). */
  sentWallMs: number;
  /** The op as sent (signed; v0.8's fields are v0.7's, without an EIP-7702 authorization here). */
  userOp: UserOperation<'0.7'>;
  /** The anvil head just before the send, and the block the op landed in. */
  headAtSend: bigint;
  block: bigint;
  preVerificationGas: bigint;
  verificationGasLimit: bigint;
  callGasLimit: bigint;
  actualGasUsed: bigint;
  /** The bundle transaction's gasUsed (one op per bundle here). */
  bundleGasUsed: bigint;
  bundleTx: Hex;
  success: boolean;
}

export class RpcFailure extends Error {}

let nextId = 1;

/** One JSON-RPC call to a bundler; an error answer throws with its code and message. */
export async function bundlerCall<T>(target: BundlerTarget, method: string, params: unknown[], timeoutMs = 15_000): Promise<T> {
  const response = await fetch(target.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let body: { result?: T; error?: { code?: number; message?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new RpcFailure(`${target.name} ${method}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (body.error || response.status !== 200) {
    throw new RpcFailure(
      `${target.name} ${method}: HTTP ${response.status}, error ${body.error?.code ?? ''} ${body.error?.message ?? text.slice(0, 300)}`,
    );
  }
  return body.result as T;
}

/** A fresh owner and its SimpleAccount v0.7 (not deployed), nonce key 0 like the API's wallets. */
export async function newAccount(client: PublicClient): Promise<BenchAccount> {
  return toSimpleSmartAccount({
    client,
    owner: privateKeyToAccount(generatePrivateKey()),
    entryPoint: { address: entryPoint07Address, version: '0.7' },
    nonceKey: 0n,
  });
}

/** The same on EntryPoint v0.8 (permissionless's default factory for it, the canonical SimpleAccountFactory v0.8). */
export async function newAccountV08(client: PublicClient): Promise<BenchAccountV08> {
  return toSimpleSmartAccount({
    client,
    owner: privateKeyToAccount(generatePrivateKey()),
    entryPoint: { address: entryPoint08Address, version: '0.8' },
    nonceKey: 0n,
  });
}

/** Sends `amount` to each address from `funder` (consecutive nonces) and waits until all are mined. */
export async function fund(
  client: PublicClient,
  funder: WalletClient,
  addresses: readonly Address[],
  amount = parseEther('0.05'),
  timeoutMs = 60_000,
): Promise<void> {
  const account = funder.account!;
  let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const to of addresses) {
    hashes.push(await funder.sendTransaction({ account, chain: funder.chain, to, value: amount, nonce: nonce++, gas: 21_000n }));
  }
  for (const hash of hashes) {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: timeoutMs });
    if (receipt.status !== 'success') throw new Error(`funding transaction ${hash} failed`);
  }
}

/** The fees every op is sent with, the same for both bundlers: twice the head's base fee plus anvil's tip. */
export async function opFees(client: PublicClient): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const [block, tip] = await Promise.all([client.getBlock({ blockTag: 'latest' }), client.estimateMaxPriorityFeePerGas()]);
  return { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + tip, maxPriorityFeePerGas: tip };
}

const rpcOp = (op: Partial<UserOperation<'0.7'>>) => formatUserOperationRequest(op as UserOperation<'0.7'>);

export interface RpcReceipt {
  actualGasUsed: Hex;
  success: boolean;
  /** The paymaster that paid, when one did. */
  paymaster?: Address | null;
  receipt: { blockNumber: Hex; gasUsed: Hex; transactionHash: Hex };
}

/** Polls eth_getUserOperationReceipt every `pollMs` until it answers, at most `timeoutMs` after `from` (performance.now()). */
export async function waitForReceipt(
  target: BundlerTarget,
  hash: Hex,
  options: { what: string; from: number; pollMs: number; timeoutMs: number },
): Promise<RpcReceipt> {
  const deadline = options.from + options.timeoutMs;
  for (;;) {
    const receipt = await bundlerCall<RpcReceipt | null>(target, 'eth_getUserOperationReceipt', [hash]);
    if (receipt) return receipt;
    if (performance.now() > deadline)
      throw new Error(`${target.name}: no receipt for ${options.what} ${hash} within ${options.timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}

/**
 * One op from `account` (deploying it when `kind` is 'deploy'), a `value` wei transfer to `recipient`.
 * Every step is bounded: each call by `callTimeoutMs`, the wait for the receipt by `receiptTimeoutMs`.
 */
export async function runOp(options: {
  target: BundlerTarget;
  client: PublicClient;
  account: BenchAccount | BenchAccountV08;
  kind: OpKind;
  recipient: Address;
  value: bigint;
  receiptPollMs: number;
  receiptTimeoutMs: number;
}): Promise<OpSample> {
  const { target, client, account, kind } = options;
  const { address: entryPoint, version } = account.entryPoint;
  const [nonce, callData, fees] = await Promise.all([
    account.getNonce(),
    account.encodeCalls([{ to: options.recipient, value: options.value }]),
    opFees(client),
  ]);
  const factoryArgs = kind === 'deploy' ? await account.getFactoryArgs() : {};
  if (kind === 'deploy' && !factoryArgs.factory) throw new Error('the account gave no factory');
  const base = {
    sender: account.address,
    nonce,
    callData,
    ...(kind === 'deploy' ? { factory: factoryArgs.factory, factoryData: factoryArgs.factoryData } : {}),
    ...fees,
    signature: await account.getStubSignature(),
  };
  // What viem's prepareUserOperation sends: zero gas fields next to the rest.
  const estimateFrom = performance.now();
  const estimate = await bundlerCall<{ preVerificationGas: Hex; verificationGasLimit: Hex; callGasLimit: Hex }>(
    target,
    'eth_estimateUserOperationGas',
    [rpcOp({ ...base, callGasLimit: 0n, verificationGasLimit: 0n, preVerificationGas: 0n }), entryPoint],
  );
  const estimateMs = performance.now() - estimateFrom;
  const gas = {
    preVerificationGas: hexToBigInt(estimate.preVerificationGas),
    verificationGasLimit: hexToBigInt(estimate.verificationGasLimit),
    callGasLimit: hexToBigInt(estimate.callGasLimit),
  };
  const unsigned = { ...base, ...gas };
  const signature = await (account as BenchAccount).signUserOperation(unsigned as UserOperation<'0.7'>);
  const op = { ...unsigned, signature };

  const headAtSend = await client.getBlockNumber({ cacheTime: 0 });
  const sendFrom = performance.now();
  const hash = await bundlerCall<Hex>(target, 'eth_sendUserOperation', [rpcOp(op), entryPoint]);
  const sendMs = performance.now() - sendFrom;
  const sentWallMs = Date.now();
  const receipt = await waitForReceipt(target, hash, {
    what: `${kind} op`,
    from: sendFrom,
    pollMs: options.receiptPollMs,
    timeoutMs: options.receiptTimeoutMs,
  });
  const receiptAt = performance.now();
  return {
    bundler: target.name,
    kind,
    entryPoint,
    version,
    sender: account.address,
    estimateMs,
    sendMs,
    receiptMs: receiptAt - sendFrom,
    sendAt: sendFrom,
    receiptAt,
    sentWallMs,
    userOp: op as UserOperation<'0.7'>,
    headAtSend,
    block: hexToBigInt(receipt.receipt.blockNumber),
    ...gas,
    actualGasUsed: hexToBigInt(receipt.actualGasUsed),
    bundleGasUsed: hexToBigInt(receipt.receipt.gasUsed),
    bundleTx: receipt.receipt.transactionHash,
    success: receipt.success,
  };
}
