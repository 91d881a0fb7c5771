import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, getAddress, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { compileContracts } from '../../src/contracts/compile.ts';
import { installMulticall3 } from '../../src/contracts/install-multicall3.ts';
import { callsPerChunk, multicallRaw } from '../../src/tokens/multicall.ts';
import type { RawCall } from '../../src/tokens/raw-call.ts';
import { decodeWord } from '../../src/tokens/token-text.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { anvilChain, deployerAccount } from '../support/contracts.ts';

describe('multicallRaw', () => {
  let anvil: Devnet;
  let client: PublicClient;
  let token: `0x${string}`;
  let calls: RawCall[];

  beforeAll(async () => {
    anvil = await startTestAnvil();
    client = createPublicClient({
      chain: anvilChain,
      transport: http(anvil.url, { timeout: 10_000, retryCount: 0 }),
    }) as PublicClient;
    const { DemoToken } = await compileContracts();
    const wallet = createWalletClient({ account: deployerAccount, chain: anvilChain, transport: http(anvil.url) });
    const hash = await wallet.deployContract({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: ['T', 'T', 18] });
    token = (await client.waitForTransactionReceipt({ hash, timeout: 10_000 })).contractAddress!;
    // Holder i holds i units, for 1,200 holders: three chunks.
    for (const i of [1, 600, 1199]) {
      const holder = getAddress(`0x${i.toString(16).padStart(40, '0')}`);
      const mint = await wallet.writeContract({
        address: token,
        abi: DemoToken.abi,
        functionName: 'mint',
        args: [holder, BigInt(i)],
      });
      await client.waitForTransactionReceipt({ hash: mint, timeout: 10_000 });
    }
    calls = Array.from({ length: 1200 }, (_, i) => ({
      target: token,
      callData: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [getAddress(`0x${i.toString(16).padStart(40, '0')}`)],
      }),
    }));
    // A call that reverts (approve-only selector the token lacks) and one to an address without code.
    calls.push(
      { target: token, callData: '0xdeadbeef' },
      { target: '0x000000000000000000000000000000000000beef', callData: calls[1]!.callData },
    );
  }, 120_000);
  afterAll(() => anvil?.stop());

  function expectAnswers(results: Awaited<ReturnType<typeof multicallRaw>>) {
    expect(callsPerChunk).toBeLessThan(1200);
    expect(results).toHaveLength(1202);
    const balances = results.slice(0, 1200).map((result) => (result.success ? decodeWord(result.returnData) : undefined));
    expect(balances.filter((balance) => balance !== 0n)).toEqual([1n, 600n, 1199n]);
    expect([balances[1], balances[600], balances[1199]]).toEqual([1n, 600n, 1199n]);
    expect(results[1200]!.success).toBe(false);
    expect(results[1201]).toEqual({ success: true, returnData: '0x' });
  }

  it('calls one by one where Multicall3 has no code, with the same answers', async () => {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const sample = [0, 1, 600, 1199, 1200, 1201].map((index) => calls[index]!);
    const results = await multicallRaw(client, sample, head);
    expect(results.slice(0, 4).map((result) => decodeWord(result.returnData))).toEqual([0n, 1n, 600n, 1199n]);
    expect(results[4]!.success).toBe(false);
    expect(results[5]).toEqual({ success: true, returnData: '0x' });
  });

  it('goes through Multicall3 in chunks, in order', async () => {
    expect(await installMulticall3(anvil.url)).toBe(true);
    await client.request({ method: 'evm_mine' as never, params: [] as never });
    const head = await client.getBlockNumber({ cacheTime: 0 });
    expectAnswers(await multicallRaw(client, calls, head));
  });

  it('throws when the upstream fails, rather than reporting failed calls', async () => {
    const dead = createPublicClient({
      chain: anvilChain,
      transport: http('http://127.0.0.1:9/', { timeout: 2_000, retryCount: 0 }),
    }) as PublicClient;
    await expect(multicallRaw(dead, calls.slice(0, 2), 1n)).rejects.toThrow();
  });
});
