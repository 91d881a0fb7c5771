import { toSimpleSmartAccount } from 'permissionless/accounts';
import {
  type Address,
  concat,
  createTestClient,
  encodeErrorResult,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  size,
  toHex,
} from 'viem';
import {
  type BundlerClient,
  createBundlerClient,
  entryPoint07Address,
  entryPoint08Address,
  type SmartAccount,
} from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Database } from '../../src/db/connect.ts';

/** The bundler's executor in these tests: anvil's account #1 (the first of `devnetExecutorKeys`). */
export const executorAddress: Address = privateKeyToAccount(devnetExecutorKeys[0]!).address;

export const bundlerUrlOf = (serviceUrl: string, network = 'devnet') => `${serviceUrl}/v1/bundler/ethereum/${network}`;

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: results are inspected freely
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** POSTs a JSON-RPC body (one call or a batch) to a bundler endpoint with fetch: the HTTP status and the parsed body. */
export async function postBundler(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; body: JsonRpcAnswer & JsonRpcAnswer[] }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, body: (await response.json()) as JsonRpcAnswer & JsonRpcAnswer[] };
}

/** One JSON-RPC call; its answer (result or error). */
export async function callBundler(url: string, key: string, method: string, params: unknown[] = []): Promise<JsonRpcAnswer> {
  const { status, body } = await postBundler(url, key, { jsonrpc: '2.0', id: 1, method, params });
  if (status !== 200) throw new Error(`${method}: HTTP ${status} ${JSON.stringify(body)}`);
  return body;
}

/** A SimpleAccount v0.7 (or v0.8) of a fresh owner (nonce key 0: the sequential nonces the tests give). */
export async function newSimpleAccount(
  publicClient: PublicClient,
  owner: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey()),
  version: '0.7' | '0.8' = '0.7',
) {
  return toSimpleSmartAccount({
    client: publicClient,
    owner,
    // Typed per version; both build the same SimpleAccount shape.
    entryPoint: { address: version === '0.8' ? entryPoint08Address : entryPoint07Address, version: version as '0.7' },
    nonceKey: 0n,
  });
}

export type SimpleAccount = Awaited<ReturnType<typeof newSimpleAccount>>;

/** viem's bundler client on a Blockyard bundler endpoint (the key in a header). */
export function bundlerClientFor(url: string, key: string, publicClient: PublicClient): BundlerClient {
  return createBundlerClient({
    client: publicClient,
    chain: foundry,
    transport: http(url, { fetchOptions: { headers: { 'x-api-key': key } }, timeout: 30_000, retryCount: 0 }),
    pollingInterval: 100,
  });
}

/** Sets balances with anvil's dev method (faster than a transfer per account). */
export async function fund(anvilUrl: string, addresses: readonly Address[], wei: bigint): Promise<void> {
  const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  await Promise.all(addresses.map((address) => testClient.setBalance({ address, value: wei })));
}

/** Fees with room: twice what the next block asks, so a base fee that rises under the bundles does not refuse an op. */
export async function generousFees(publicClient: PublicClient) {
  const fees = await publicClient.estimateFeesPerGas();
  return { maxFeePerGas: fees.maxFeePerGas * 2n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

/**
 * Sends `values.length` ops of one account with the explicit nonces 0, 1, … without waiting for any to
 * land: each pays `values[i]` wei to `recipient`. The first (which deploys the account) is estimated by
 * the bundler; the later ones reuse its gas (the deploying op needs the most) and carry no factory.
 * `atOnce`: all sent together, none waiting for another's answer (else each after the previous one's).
 */
export async function sendConsecutiveOps(
  bundlerClient: BundlerClient,
  account: SmartAccount,
  recipient: Address,
  values: readonly bigint[],
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  options: { atOnce?: boolean } = {},
): Promise<Hex[]> {
  const gas = await bundlerClient.estimateUserOperationGas({
    account,
    calls: [{ to: recipient, value: values[0] ?? 0n }],
    nonce: 0n,
    ...fees,
  });
  // Sent at once, the first op names its factory itself: viem would otherwise look up the account's
  // code first and send it after the others.
  const deploy = options.atOnce ? await account.getFactoryArgs() : {};
  const send = (value: bigint, index: number) =>
    bundlerClient.sendUserOperation({
      account,
      calls: [{ to: recipient, value }],
      nonce: BigInt(index),
      callGasLimit: gas.callGasLimit,
      verificationGasLimit: gas.verificationGasLimit,
      preVerificationGas: gas.preVerificationGas,
      ...fees,
      ...(index === 0 ? deploy : {}),
      // Later ops must not deploy again (AA10): viem adds the factory while the account has no code yet.
      ...(index === 0 && !options.atOnce ? {} : { parameters: ['fees', 'gas', 'nonce', 'signature'] as const }),
    });
  if (options.atOnce) return Promise.all(values.map(send));
  const hashes: Hex[] = [];
  for (const [index, value] of values.entries()) hashes.push(await send(value, index));
  return hashes;
}

/** eth_getUserOperationReceipt's answer as JSON (quantities as 0x strings). */
export interface RpcUserOperationReceipt {
  userOpHash: Hex;
  sender: Address;
  nonce: Hex;
  success: boolean;
  actualGasCost: Hex;
  receipt: { transactionHash: Hex; blockNumber: Hex; blockHash: Hex; status: Hex };
}

/**
 * Polls eth_getUserOperationReceipt for every hash (JSON-RPC batches of 50) until all have one; rejects
 * after `timeoutMs` naming how many are missing.
 */
export async function waitForReceipts(
  url: string,
  key: string,
  hashes: readonly Hex[],
  timeoutMs: number,
): Promise<Map<Hex, RpcUserOperationReceipt>> {
  const found = new Map<Hex, RpcUserOperationReceipt>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = hashes.filter((hash) => !found.has(hash));
    for (let start = 0; start < missing.length; start += 50) {
      const chunk = missing.slice(start, start + 50);
      const { status, body } = await postBundler(
        url,
        key,
        chunk.map((hash, index) => ({ jsonrpc: '2.0', id: index, method: 'eth_getUserOperationReceipt', params: [hash] })),
      );
      if (status !== 200 || !Array.isArray(body)) throw new Error(`receipts: HTTP ${status} ${JSON.stringify(body)}`);
      for (const [index, answer] of body.entries()) {
        if (answer.error) throw new Error(`eth_getUserOperationReceipt: ${JSON.stringify(answer.error)}`);
        if (answer.result) found.set(chunk[index]!, answer.result);
      }
    }
    if (found.size === hashes.length) return found;
    if (Date.now() > deadline) {
      throw new Error(`${hashes.length - found.size} of ${hashes.length} user operations have no receipt after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Rows of the mempool table (any status). */
export async function countUserOperations(db: Database): Promise<number> {
  const row = await db
    .selectFrom('user_operations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runtime code of an account that pays its prefund and accepts any op (no signature check). */
export const acceptingAccountCode: Hex = '0x6000600060006000604435335af150600060005260206000f3';

/** A v0.7 op of `sender` with no call and no signature, at fixed fees; its gas fields come from an estimate. */
export function bareUserOperation(sender: Address, nonce: Hex = '0x0') {
  return { sender, nonce, callData: '0x', signature: '0x', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x3b9aca00' };
}

/** What a call to `installReverter`'s code reverts with: Error(revertReason), ABI-encoded as `revertBytes`. */
export const revertReason = 'blockyard test: always reverts';
export const revertBytes: Hex = encodeErrorResult({
  abi: parseAbi(['error Error(string)']),
  errorName: 'Error',
  args: [revertReason],
});

/**
 * Puts code at `address` that reverts every call with `revertBytes`: CODECOPY them from after the 12
 * bytes of code into memory, then REVERT with them.
 */
export async function installReverter(anvilUrl: string, address: Address): Promise<void> {
  const length = toHex(size(revertBytes), { size: 1 });
  // PUSH1 len, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 len, PUSH1 0, REVERT
  const bytecode = concat(['0x60', length, '0x600c600039', '0x60', length, '0x6000fd', revertBytes]);
  const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  await testClient.setCode({ address, bytecode });
}
