import { Alchemy } from 'alchemy-sdk';
import { type Address, encodeFunctionData, numberToHex, parseAbi, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import type { AssetChangesAnswer } from './simulation-support.ts';

const { dev, alice, bob, carol } = demoAccounts;
const unit = 10n ** 18n;
/** An address with nothing: it can only spend what an earlier transaction of its bundle gave it. */
const fresh = '0x00000000000000000000000000000000000c0ffe' as Address;

describe('Alchemy transaction simulation: SDK, bundles, surfaces, errors', () => {
  let t: TestService;
  let key: string;
  let url: string;
  let c: TestContracts;

  beforeAll(async () => {
    t = await startTestService({
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
      settings: { bundler_keys: devnetExecutorKeys[0] },
    });
    key = (await t.createKey()).key;
    url = `${t.url}/v1/rpc/ethereum/devnet/${key}`;
    c = await deployTestContracts(t.anvil.url);
    const hash = await c.wallet.writeContract({
      address: c.token,
      abi: c.artifacts.DemoToken.abi,
      functionName: 'mint',
      args: [dev, 100n * unit],
    });
    await c.publicClient.waitForTransactionReceipt({ hash });
  }, 120_000);
  afterAll(() => t?.stop());

  const transfer = (to: Address, amount: bigint) =>
    encodeFunctionData({ abi: c.artifacts.DemoToken.abi, functionName: 'transfer', args: [to, amount] });
  const rpcAt = async (endpoint: string, method: string, params: unknown) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as { result?: unknown; error?: { code: number; message: string } },
    };
  };

  it("alchemy-sdk's transact.simulateAssetChanges and simulateExecution, given only the URL", async () => {
    const alchemy = new Alchemy({ url });
    const changes = await alchemy.transact.simulateAssetChanges({ from: dev, to: c.token, data: transfer(alice, 3n * unit) });
    expect(changes.error).toBeUndefined();
    expect(changes.changes).toEqual([
      expect.objectContaining({
        assetType: 'ERC20',
        changeType: 'TRANSFER',
        from: dev.toLowerCase(),
        to: alice.toLowerCase(),
        rawAmount: (3n * unit).toString(),
        amount: '3',
        symbol: 'TST',
        decimals: 18,
        contractAddress: c.token.toLowerCase(),
      }),
    ]);
    expect(Number(changes.gasUsed)).toBeGreaterThan(21_000);

    const execution = await alchemy.transact.simulateExecution({ from: dev, to: c.token, data: transfer(alice, 3n * unit) });
    expect(execution.calls[0]).toMatchObject({ type: 'CALL', from: dev.toLowerCase(), to: c.token.toLowerCase(), value: '0x0' });
    expect(execution.logs).toHaveLength(1);
    expect(execution.logs[0]!.address).toBe(c.token.toLowerCase());
    expect(BigInt(execution.logs[0]!.topics[2]!)).toBe(BigInt(alice));
  });

  it('bundles chain state: the second transaction spends what the first gave', async () => {
    const give = { from: dev, to: c.token, data: transfer(fresh, 2n * unit) };
    const spend = { from: fresh, to: c.token, data: transfer(bob, 2n * unit) };
    const alone = (await rpcAt(url, 'alchemy_simulateAssetChanges', [spend])).body.result as AssetChangesAnswer;
    expect(alone.error?.message).toMatch(/revert/);
    const bundle = (await rpcAt(url, 'alchemy_simulateAssetChangesBundle', [[give, spend]])).body.result as AssetChangesAnswer[];
    expect(bundle.map((answer) => answer.error)).toEqual([null, null]);
    expect(bundle[1]!.changes).toEqual([
      expect.objectContaining({ from: fresh, to: bob.toLowerCase(), rawAmount: (2n * unit).toString() }),
    ]);
    // ETH too: the fresh address forwards what it was sent.
    const eth = (
      await rpcAt(url, 'alchemy_simulateAssetChangesBundle', [
        [
          { from: dev, to: fresh, value: numberToHex(parseEther('1')) },
          { from: fresh, to: carol, value: numberToHex(parseEther('0.5')) },
        ],
      ])
    ).body.result as AssetChangesAnswer[];
    expect(eth[1]!.changes).toEqual([
      expect.objectContaining({ assetType: 'NATIVE', from: fresh, to: carol.toLowerCase(), amount: '0.5', symbol: 'ETH' }),
    ]);
    // Execution traces chain the same way (debug_traceCall under the earlier ones' state diffs).
    const traced = (await rpcAt(url, 'alchemy_simulateExecutionBundle', [[give, spend]])).body.result as {
      calls: { error?: string }[];
      logs: unknown[];
    }[];
    expect(traced.map((answer) => answer.calls[0]!.error)).toEqual([undefined, undefined]);
    expect(traced[1]!.logs).toHaveLength(1);
  });

  it('reports a revert as Alchemy does: no changes, error and reason; execution shows the failing call', async () => {
    const overdraw = { from: carol, to: c.token, data: transfer(alice, 10n ** 30n) };
    const answer = (await rpcAt(url, 'alchemy_simulateAssetChanges', [overdraw])).body.result as AssetChangesAnswer;
    expect(answer).toMatchObject({
      changes: [],
      gasUsed: null,
      error: { message: expect.stringMatching(/^execution reverted/) },
    });
    const nested = (await rpcAt(url, 'alchemy_simulateExecution', ['NESTED', overdraw, 'latest'])).body.result as {
      calls: { error?: string; calls: unknown[] }[];
      error?: string;
    };
    expect(nested.calls).toHaveLength(1);
    expect(nested.calls[0]!.error).toMatch(/revert/);
    expect(nested.error).toMatch(/revert/);
  });

  it("a transaction the node refuses to run (ETH its sender lacks) answers the node's message as the error", async () => {
    const broke = { from: fresh, to: carol, value: numberToHex(parseEther('5')) };
    const single = (await rpcAt(url, 'alchemy_simulateAssetChanges', [broke])).body.result as AssetChangesAnswer;
    expect(single).toEqual({ changes: [], gasUsed: null, error: { message: expect.stringMatching(/insufficient funds/i) } });
    const execution = (await rpcAt(url, 'alchemy_simulateExecution', [broke])).body.result as { calls: unknown[]; error: string };
    expect(execution.calls).toEqual([]);
    expect(execution.error).toMatch(/insufficient funds/i);
  });

  it('answers on the URL form, the header form, the bundler URL and the WebSocket, at its compute units', async () => {
    const tx = { from: dev, to: alice, value: '0x1' };
    const viaUrl = await rpcAt(url, 'alchemy_simulateAssetChanges', [tx]);
    const viaBundler = await rpcAt(`${t.url}/v1/bundler/ethereum/devnet/${key}`, 'alchemy_simulateAssetChanges', [tx]);
    const viaHeader = await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'alchemy_simulateAssetChanges', params: [tx] });
    const headerBody = (await viaHeader.json()) as { result: unknown };
    expect(viaBundler.body.result).toEqual(viaUrl.body.result);
    expect(headerBody.result).toEqual(viaUrl.body.result);
    expect((viaUrl.body.result as AssetChangesAnswer).changes[0]).toMatchObject({ assetType: 'NATIVE', rawAmount: '1' });
    const socket = new WebSocket(`${t.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet/${key}`);
    try {
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
        setTimeout(() => reject(new Error('no open within 10 s')), 10_000);
      });
      const message = new Promise<string>((resolve, reject) => {
        socket.once('message', (data) => resolve(String(data)));
        setTimeout(() => reject(new Error('no answer within 10 s')), 10_000);
      });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'alchemy_simulateAssetChanges', params: [tx] }));
      expect(JSON.parse(await message)).toEqual({ jsonrpc: '2.0', id: 7, result: viaUrl.body.result });
    } finally {
      socket.close();
    }
  });

  it('costs 150 a transaction and 200 a bundle: a batch of both is 350 compute units', async () => {
    const tx = { from: dev, to: alice, value: '0x1' };
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'alchemy_simulateAssetChanges', params: [tx] },
      { jsonrpc: '2.0', id: 2, method: 'alchemy_simulateAssetChangesBundle', params: [[tx, tx]] },
    ];
    const tight = await t.createKey({ plan: 'enterprise', limits: { cups: 349 } });
    const refused = await t.rpc(tight.key, batch);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'costs 350 compute units, more than the 349',
    );
    const enough = await t.createKey({ plan: 'enterprise', limits: { cups: 350 } });
    const answered = (await (await t.rpc(enough.key, batch)).json()) as { result?: unknown }[];
    expect(answered.map((answer) => answer.result !== undefined)).toEqual([true, true]);
  });

  it("a key's methods list names them; its contracts list checks every transaction's to", async () => {
    const limited = await t.createKey();
    await restrictKey(t, limited.keyId, { methods: ['alchemy_simulateAssetChanges'], contracts: [c.token] });
    const at = `${t.url}/v1/rpc/ethereum/devnet/${limited.key}`;
    const allowed = await rpcAt(at, 'alchemy_simulateAssetChanges', [{ from: dev, to: c.token, data: transfer(bob, 1n) }]);
    expect((allowed.body.result as AssetChangesAnswer).changes).toHaveLength(1);
    expect((await rpcAt(at, 'alchemy_simulateAssetChanges', [{ from: dev, to: c.nft, data: '0x' }])).status).toBe(403);
    expect((await rpcAt(at, 'alchemy_simulateExecution', [{ from: dev, to: c.token, data: '0x' }])).status).toBe(403);
  });

  it('alchemy_simulateUserOperationAssetChanges: a new account (v0.7 factory) pays a token and ETH, dummy signature', async () => {
    const { v07 } = await installErc4337Contracts(t.anvil.url);
    const factoryAbi = parseAbi([
      'function createAccount(address owner, uint256 salt) returns (address)',
      'function getAddress(address owner, uint256 salt) view returns (address)',
    ]);
    const sender = (
      await c.publicClient.readContract({ address: v07.factory, abi: factoryAbi, functionName: 'getAddress', args: [alice, 7n] })
    ).toLowerCase() as Address;
    const minted = await c.wallet.writeContract({
      address: c.token,
      abi: c.artifacts.DemoToken.abi,
      functionName: 'mint',
      args: [sender, 5n * unit],
    });
    await c.publicClient.waitForTransactionReceipt({ hash: minted });
    await c.publicClient.waitForTransactionReceipt({
      hash: await c.wallet.sendTransaction({ to: sender, value: parseEther('1') }),
    });
    const accountAbi = parseAbi(['function executeBatch(address[] dest, uint256[] value, bytes[] func)']);
    const op = {
      sender,
      nonce: '0x0',
      factory: v07.factory,
      factoryData: encodeFunctionData({ abi: factoryAbi, functionName: 'createAccount', args: [alice, 7n] }),
      callData: encodeFunctionData({
        abi: accountAbi,
        functionName: 'executeBatch',
        args: [
          [c.token, carol],
          [0n, parseEther('0.25')],
          [transfer(bob, 2n * unit), '0x'],
        ],
      }),
      callGasLimit: '0x100000',
      verificationGasLimit: '0x100000',
      preVerificationGas: '0x10000',
      maxFeePerGas: '0x3b9aca00',
      maxPriorityFeePerGas: '0x3b9aca00',
      signature: `0x${'ff'.repeat(32)}${'00'.repeat(32)}1c`,
    };
    const { body } = await rpcAt(url, 'alchemy_simulateUserOperationAssetChanges', [op, v07.entryPoint]);
    expect(body.result).toEqual({
      error: null,
      changes: [
        expect.objectContaining({ assetType: 'ERC20', from: sender, to: bob.toLowerCase(), amount: '2', symbol: 'TST' }),
        expect.objectContaining({ assetType: 'NATIVE', from: sender, to: carol.toLowerCase(), amount: '0.25', symbol: 'ETH' }),
      ],
    });
    // The account's code is only simulated: nothing was deployed.
    expect(await c.publicClient.getCode({ address: sender })).toBeUndefined();
  });

  it('bad params are -32602 naming the parameter', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['alchemy_simulateAssetChanges', [], /'params'/],
      ['alchemy_simulateAssetChanges', [{ from: dev, to: 'nope' }], /'params\[0\]\.to'/],
      ['alchemy_simulateAssetChanges', [{ from: dev, to: alice, value: 'ten' }], /'params\[0\]\.value'/],
      ['alchemy_simulateAssetChanges', [{ from: dev, to: alice, valu: '0x1' }], /'valu'/],
      ['alchemy_simulateAssetChanges', [{ from: dev, to: alice }, 'tomorrow'], /'params\[1\]'/],
      [
        'alchemy_simulateAssetChangesBundle',
        [[{ to: alice }, { to: alice }, { to: alice }, { to: alice }]],
        /'params\[0\]'.*1 to 3/,
      ],
      ['alchemy_simulateExecutionBundle', [[{ to: alice }, { to: 'x' }]], /'params\[0\]\[1\]\.to'/],
      ['alchemy_simulateExecution', ['TREE', { to: alice }], /'params\[0\]'/],
      ['alchemy_simulateExecution', ['FLAT', { to: alice, gas: 'lots' }], /'params\[1\]\.gas'/],
      ['alchemy_simulateAssetChanges', [{ to: alice, gas: `0x1${'0'.repeat(16)}` }], /'params\[0\]\.gas'.*2\^64/],
      ['alchemy_simulateAssetChanges', [{ to: alice, gasLimit: `0x1${'0'.repeat(16)}` }], /'params\[0\]\.gas'.*2\^64/],
      ['alchemy_simulateAssetChanges', [{ to: alice, nonce: `0x${'f'.repeat(17)}` }], /'params\[0\]\.nonce'.*2\^64/],
      ['alchemy_simulateUserOperationAssetChanges', [{ sender: alice, callData: '0x' }, alice], /'params\[1\]'/],
    ];
    for (const [method, params, message] of cases) {
      const { body } = await rpcAt(url, method, params);
      expect(body.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(body.error?.message, `${method} ${JSON.stringify(params)}`).toMatch(message);
    }
  });
});
