import { type Address, createWalletClient, getAddress, type Hex, http, toHex } from 'viem';
import { entryPoint07Address, getUserOperationHash, toPackedUserOperation } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { knownOpError } from '../../src/bundler/known-ops.ts';
import { getUserOperationByHash } from '../../src/bundler/methods/get-user-operation-by-hash.ts';
import { getUserOperationReceipt } from '../../src/bundler/methods/get-user-operation-receipt.ts';
import { getUserOperationStatus } from '../../src/bundler/methods/get-user-operation-status.ts';
import { parseUserOperation, toRpcUserOperation } from '../../src/bundler/user-operation.ts';
import type { Network } from '../../src/chains/registry.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { acceptingAccountCode } from './support.ts';

const sender = '0x000000000000000000000000000000000000acc7' as Address;

const baseOp = {
  sender,
  nonce: 0n as bigint,
  callData: '0x',
  callGasLimit: 10_000n,
  verificationGasLimit: 100_000n,
  preVerificationGas: 50_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  signature: '0x',
} as const;

/** What the method reads of the network on this path: its name (the client is given). */
const devnet = { config: { chain: 'ethereum', network: 'devnet' } } as unknown as Network;

const hashOf = (op: typeof baseOp) =>
  getUserOperationHash({
    userOperation: op,
    entryPointAddress: entryPoint07Address,
    entryPointVersion: '0.7',
    chainId: foundry.id,
  });

describe('receipts of ops another bundler sent', () => {
  let { chain, key } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, key } = await startBundlerChain({ accounts: [{ address: sender, code: acceptingAccountCode }] }));
    mempool = await createTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
    await mempool?.close();
  });
  let firstBundle: Hex | undefined;
  // A mempool of its own, which no bundler settles: its rows stay `submitted` whatever the chain does.
  let mempool: TestDatabase;
  const mempoolContext = () => ({ db: mempool.db, clientOf: () => chain.publicClient });
  const receiptWhileSubmitted = (hash: Hex) => getUserOperationReceipt(mempoolContext(), devnet, hash);
  /** What eth_getUserOperationByHash, pimlico_getUserOperationStatus and a send of the op again say of it at the same moment. */
  const lookupsWhileSubmitted = async (hash: Hex) => ({
    byHash: (await getUserOperationByHash(mempoolContext(), devnet, [hash])) as Record<string, unknown> | null,
    status: await getUserOperationStatus(mempoolContext(), devnet, [hash]),
    sentAgain: (await knownOpError(mempool.db, chain.publicClient, hash.toLowerCase()))?.message,
  });

  /** Another bundler: anvil's account #3 sends handleOps itself. */
  async function bundleElsewhere(op: typeof baseOp): Promise<Hex> {
    const other = createWalletClient({
      account: privateKeyToAccount(devnetExecutorKeys[2]!),
      chain: foundry,
      transport: http(chain.service.anvil.url),
    });
    return other.writeContract({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(op)], other.account.address],
      gas: 1_000_000n,
    });
  }

  /** The op's row as a bundler leaves it between sending its bundle and seeing the bundle's block. */
  async function insertSubmitted(op: typeof baseOp, hash: Hex, txHash: Hex) {
    await mempool.db
      .insertInto('user_operations')
      .values({
        hash: hash.toLowerCase(),
        network: 'ethereum/devnet',
        entry_point: entryPoint07Address.toLowerCase(),
        entry_point_version: '0.7',
        sender: op.sender.toLowerCase(),
        nonce: op.nonce.toString(),
        op: '{}',
        max_fee_per_gas: op.maxFeePerGas.toString(),
        max_priority_fee_per_gas: op.maxPriorityFeePerGas.toString(),
        status: 'submitted',
        tx_hash: txHash,
      })
      .execute();
  }

  async function bundlerCall(method: string, hash: Hex): Promise<unknown> {
    const response = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [hash] }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: unknown };
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }
  const receiptOf = (hash: Hex) => bundlerCall('eth_getUserOperationReceipt', hash);

  it('eth_getUserOperationReceipt finds them on chain by their UserOperationEvent', async () => {
    const op = baseOp;
    const hash = hashOf(op);
    const tx = await bundleElsewhere(op);
    firstBundle = tx;
    await chain.publicClient.waitForTransactionReceipt({ hash: tx });

    const response = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUserOperationReceipt', params: [hash] }),
    });
    const { result } = (await response.json()) as { result: Record<string, unknown> & { receipt: { transactionHash: string } } };
    expect(result).toMatchObject({
      userOpHash: hash,
      entryPoint: entryPoint07Address,
      sender: getAddress(sender),
      nonce: '0x0',
      success: true,
    });
    expect(result.receipt.transactionHash).toBe(tx);
    expect(BigInt(result.actualGasUsed as string)).toBeGreaterThan(0n);

    const unknown = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_getUserOperationReceipt', params: [`0x${'ab'.repeat(32)}`] }),
    });
    expect(((await unknown.json()) as { result: unknown }).result).toBeNull();
  });

  it('an op whose bundle is mined has its receipt, and is included by hash and status, before the bundler records it', async () => {
    const op = { ...baseOp, nonce: 1n };
    const hash = hashOf(op);
    await chain.anvilRpc('evm_setAutomine', [false]);
    let tx: Hex;
    try {
      tx = await bundleElsewhere(op);
      await insertSubmitted(op, hash, tx);
      expect(await receiptWhileSubmitted(hash)).toBeNull();
      const pending = await lookupsWhileSubmitted(hash);
      expect(pending.byHash).toMatchObject({ transactionHash: null, blockHash: null, blockNumber: null });
      expect(pending.status).toEqual({ status: 'submitted', transactionHash: tx });
      expect(pending.sentAgain).toMatch(/is already in the mempool$/);
    } finally {
      await chain.anvilRpc('evm_setAutomine', [true]);
    }
    await chain.anvilRpc('evm_mine');
    await chain.publicClient.waitForTransactionReceipt({ hash: tx });

    const mined = await receiptWhileSubmitted(hash);
    expect(mined).toMatchObject({ userOpHash: hash.toLowerCase(), entryPoint: entryPoint07Address, nonce: '0x1', success: true });
    expect((mined as { receipt: { transactionHash: string } }).receipt.transactionHash).toBe(tx);
    // Built as the answer for an op found on chain (the service has no row of it).
    expect(mined).toEqual(await receiptOf(hash));
    // The other lookups say the same at once: included, in the receipt's block.
    const { receipt } = mined as { receipt: { transactionHash: string; blockHash: string; blockNumber: string } };
    const included = await lookupsWhileSubmitted(hash);
    expect(included.byHash).toMatchObject({
      entryPoint: entryPoint07Address.toLowerCase(),
      transactionHash: receipt.transactionHash,
      blockHash: receipt.blockHash,
      blockNumber: receipt.blockNumber,
    });
    expect(included.status).toEqual({ status: 'included', transactionHash: tx });
    expect(included.sentAgain).toMatch(
      new RegExp(`was already included in block ${BigInt(receipt.blockNumber)} \\(transaction ${receipt.transactionHash}\\)$`),
    );
  });

  it('an op whose bundle is not mined, or does not carry it, has no receipt yet', async () => {
    const op = { ...baseOp, nonce: 9n };
    const hash = hashOf(op);
    await insertSubmitted(op, hash, `0x${'ef'.repeat(32)}`);
    expect(await receiptWhileSubmitted(hash)).toBeNull();
    expect((await lookupsWhileSubmitted(hash)).status.status).toBe('submitted');
    // A mined bundle of another op.
    await mempool.db
      .updateTable('user_operations')
      .set({ tx_hash: firstBundle! })
      .where('hash', '=', hash.toLowerCase())
      .execute();
    expect(await receiptWhileSubmitted(hash)).toBeNull();
    const elsewhere = await lookupsWhileSubmitted(hash);
    expect(elsewhere.byHash).toMatchObject({ transactionHash: null, blockNumber: null });
    expect(elsewhere.status.status).toBe('submitted');
    expect(elsewhere.sentAgain).toMatch(/is already in the mempool$/);
  });

  it('eth_getUserOperationByHash and pimlico_getUserOperationStatus find them on chain too: the op read back from the bundle, in its block', async () => {
    // The sender's next nonce: 0 and 1 were bundled by the tests above.
    const op = { ...baseOp, nonce: 2n };
    const hash = hashOf(op);
    const tx = await bundleElsewhere(op);
    const mined = await chain.publicClient.waitForTransactionReceipt({ hash: tx });
    const rpcForm = Object.fromEntries(
      Object.entries(op).map(([name, value]) => [name, typeof value === 'bigint' ? toHex(value) : value]),
    );
    expect(await bundlerCall('eth_getUserOperationByHash', hash)).toEqual({
      // Exactly what it answers for an op it admitted itself.
      userOperation: toRpcUserOperation(parseUserOperation('0.7', rpcForm)),
      entryPoint: entryPoint07Address.toLowerCase(),
      transactionHash: tx,
      blockHash: mined.blockHash,
      blockNumber: toHex(mined.blockNumber),
    });
    expect(await bundlerCall('eth_getUserOperationByHash', `0x${'ab'.repeat(32)}`)).toBeNull();
    // And pimlico_getUserOperationStatus says the same.
    expect(await bundlerCall('pimlico_getUserOperationStatus', hash)).toEqual({ status: 'included', transactionHash: tx });
    expect(await bundlerCall('pimlico_getUserOperationStatus', `0x${'ab'.repeat(32)}`)).toEqual({
      status: 'not_found',
      transactionHash: null,
    });
  });
});
