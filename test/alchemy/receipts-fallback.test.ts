import { type Hex, numberToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import type { TestRpcServer } from '../support/rpc-server.ts';
import type { TestService } from '../support/service.ts';
import { forwardAllBut, useServiceWithSepolia } from '../support/service-setups.ts';

const sepolia = '/v1/rpc/ethereum/sepolia';

/**
 * A network whose node has no eth_getBlockReceipts (a real HTTP server in front of anvil answering it
 * -32601) and no index: receipts come one by one, asset transfers are not served there.
 */
describe('alchemy_ methods on a network without eth_getBlockReceipts and without an index', () => {
  let t: TestService;
  let upstream: TestRpcServer;
  let anvilUrl = '';
  let key: string;
  useServiceWithSepolia(forwardAllBut('eth_getBlockReceipts'), (started) => ({ t, upstream, anvilUrl, key } = started));

  const anvil = (method: string, params: unknown[]) => jsonRpc(anvilUrl, method, params);
  const call = async (method: string, params: unknown[]) =>
    (await (await t.rpc(key, { jsonrpc: '2.0', id: 3, method, params }, sepolia)).json()) as {
      result?: unknown;
      error?: { code: number; message: string };
    };

  it('getTransactionReceipts falls back to eth_getTransactionReceipt per transaction', async () => {
    await anvil('evm_setAutomine', [false]);
    const hashes: Hex[] = [];
    for (const to of [demoAccounts.alice, demoAccounts.bob]) {
      hashes.push((await anvil('eth_sendTransaction', [{ from: demoAccounts.dev, to, value: numberToHex(1000n) }])) as Hex);
    }
    await anvil('evm_mine', []);
    await anvil('evm_setAutomine', [true]);
    const direct = await Promise.all(hashes.map((hash) => anvil('eth_getTransactionReceipt', [hash])));
    const { blockNumber } = direct[0] as { blockNumber: Hex };

    const answer = await call('alchemy_getTransactionReceipts', [{ blockNumber }]);
    expect(answer).toMatchObject({ result: { receipts: direct } });
    expect(upstream.count('eth_getBlockReceipts')).toBe(1);
    expect(upstream.count('eth_getTransactionReceipt')).toBe(2);
    expect(await call('alchemy_getTransactionReceipts', [{ blockNumber: '0xfffff' }])).toMatchObject({
      result: { receipts: null },
    });
  });

  it('getAssetTransfers is -32601 where there is no index; a token list still gets balances', async () => {
    expect((await call('alchemy_getAssetTransfers', [{ category: ['erc20'] }])).error).toEqual({
      code: -32601,
      message:
        "the method 'alchemy_getAssetTransfers' is not available on ethereum/sepolia: it reads the chain index, which is off for this network (indexer.enabled)",
    });
    expect((await call('alchemy_getTokenBalances', [demoAccounts.dev, 'erc20'])).error?.message).toMatch(
      /^invalid parameter 'params\[1\]': "erc20" lists the tokens the chain index saw/,
    );
  });
});
