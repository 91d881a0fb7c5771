import { createPublicClient, encodeFunctionData, getAddress, http, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { multicall3Address } from '../../src/chains/public-client.ts';
import { compileContracts } from '../../src/contracts/compile.ts';
import { installMulticall3 } from '../../src/contracts/install-multicall3.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { anvilChain, deployerAccount, deployTestContracts, type TestContracts } from '../support/contracts.ts';

const alice = getAddress('0x70997970c51812dc3a010c7d01b50e5d17dc79c8');

describe('Multicall3', () => {
  let anvil: Devnet;
  let c: TestContracts;

  beforeAll(async () => {
    anvil = await startTestAnvil();
  });
  afterAll(() => anvil?.stop());

  it('is installed at its canonical address once, with our runtime code', async () => {
    const client = createPublicClient({ transport: http(anvil.url) });
    expect(await client.getCode({ address: multicall3Address })).toBeUndefined();
    expect(await installMulticall3(anvil.url)).toBe(true);
    expect(await client.getCode({ address: multicall3Address })).toBe((await compileContracts()).Multicall3.deployedBytecode);
    expect(await installMulticall3(anvil.url)).toBe(false);
  });

  it("serves viem's multicall (aggregate3), a failing call included", async () => {
    c = await deployTestContracts(anvil.url);
    const token = { address: c.token, abi: c.artifacts.DemoToken.abi } as const;
    const nft = { address: c.nft, abi: c.artifacts.DemoNft.abi } as const;
    await c.publicClient.waitForTransactionReceipt({
      hash: await c.wallet.writeContract({ ...token, functionName: 'mint', args: [alice, 42n] }),
    });
    const results = await c.publicClient.multicall({
      contracts: [
        { ...token, functionName: 'balanceOf', args: [alice] },
        { ...token, functionName: 'symbol' },
        { ...nft, functionName: 'ownerOf', args: [1n] },
      ],
    });
    expect(results[0]).toEqual({ status: 'success', result: 42n });
    expect(results[1]).toEqual({ status: 'success', result: 'TST' });
    expect(results[2]!.status).toBe('failure');
    expect(anvilChain.contracts?.multicall3?.address).toBe(multicall3Address);
  });

  it('answers the block and account helpers', async () => {
    const multicall = { address: multicall3Address, abi: (await compileContracts()).Multicall3.abi } as const;
    const block = await c.publicClient.getBlock();
    const read = (functionName: string, args: readonly unknown[] = [], blockTag?: 'latest') =>
      c.publicClient.readContract({
        ...multicall,
        functionName,
        args,
        ...(blockTag ? { blockTag } : { blockNumber: block.number }),
      });
    expect(await read('getBlockNumber')).toBe(block.number);
    expect(await read('getCurrentBlockTimestamp')).toBe(block.timestamp);
    expect(await read('getBasefee')).toBe(block.baseFeePerGas);
    expect(await read('getChainId')).toBe(31337n);
    await c.publicClient.waitForTransactionReceipt({
      hash: await c.wallet.sendTransaction({ to: alice, value: parseEther('1.5') }),
    });
    expect(await read('getEthBalance', [alice], 'latest')).toBe(parseEther('1.5'));
    expect(await read('getEthBalance', [deployerAccount.address])).toBe(
      await c.publicClient.getBalance({ address: deployerAccount.address, blockNumber: block.number }),
    );
  });

  it('aggregate reverts when a call fails; tryAggregate reports it', async () => {
    const multicall = { address: multicall3Address, abi: (await compileContracts()).Multicall3.abi } as const;
    const symbol = encodeFunctionData({ abi: c.artifacts.DemoToken.abi, functionName: 'symbol' });
    const ownerOf = encodeFunctionData({ abi: c.artifacts.DemoNft.abi, functionName: 'ownerOf', args: [1n] });
    const calls = [
      { target: c.token, callData: symbol },
      { target: c.nft, callData: ownerOf },
    ];
    await expect(c.publicClient.readContract({ ...multicall, functionName: 'aggregate', args: [calls] })).rejects.toThrow(
      /CallFailed/,
    );
    const results = (await c.publicClient.readContract({ ...multicall, functionName: 'tryAggregate', args: [false, calls] })) as {
      success: boolean;
    }[];
    expect(results.map((result) => result.success)).toEqual([true, false]);
  });
});
