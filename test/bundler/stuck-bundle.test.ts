import { type Address, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { acceptingAccountCode, bareUserOperation } from './support.ts';

const sender = '0x000000000000000000000000000000000000acc8' as Address;

describe('a bundle that is not mined', () => {
  let chain: IndexedChain;
  let key: string;
  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainSettings: { bundler: { enabled: true } },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    await chain.anvilRpc('anvil_setCode', [sender, acceptingAccountCode]);
    await chain.anvilRpc('anvil_setBalance', [sender, `0x${parseEther('1').toString(16)}`]);
    key = (await chain.service.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await chain?.anvilRpc('evm_setAutomine', [true]).catch(() => undefined);
    await chain?.service.stop();
  });

  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  const bundler = async (
    method: string,
    params: unknown[],
  ): Promise<{ result?: any; error?: { code: number; message: string } }> => {
    const response = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return response.json() as Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  };

  it('is sent again with the same nonce and higher fees, and the op lands', async () => {
    const base = bareUserOperation(sender);
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    await chain.anvilRpc('evm_setAutomine', [false]);
    const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    expect(sent.error).toBeUndefined();
    const first = await eventually(
      async () =>
        (
          (await bundler('pimlico_getUserOperationStatus', [sent.result])).result as {
            status: string;
            transactionHash: string | null;
          }
        ).transactionHash ?? undefined,
      { timeoutMs: 10_000, intervalMs: 100, what: 'the first bundle' },
    );
    // Nothing is mined: after 5 s the bundler replaces its transaction.
    const replaced = await eventually(
      async () => {
        const status = (await bundler('pimlico_getUserOperationStatus', [sent.result])).result as {
          transactionHash: string | null;
        };
        return status.transactionHash && status.transactionHash !== first ? status.transactionHash : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the replacement bundle' },
    );
    const pool = (await chain.anvilRpc('txpool_content')) as {
      pending: Record<string, Record<string, { hash: string; maxPriorityFeePerGas: string }>>;
    };
    const queued = Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
    expect(queued.map((tx) => tx.hash)).toEqual([replaced]);
    expect(BigInt(queued[0]!.maxPriorityFeePerGas)).toBe((1_000_000_000n * 125n) / 100n);
    await chain.anvilRpc('evm_mine');
    const receipt = await eventually(
      async () => (await bundler('eth_getUserOperationReceipt', [sent.result])).result ?? undefined,
      {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: 'the receipt',
      },
    );
    expect(receipt).toMatchObject({ success: true, receipt: { transactionHash: replaced } });
  }, 60_000);
});
