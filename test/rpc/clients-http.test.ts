import { FetchRequest, JsonRpcProvider } from 'ethers';
import { createPublicClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { deployEmitter, emitPing, pingAbi } from '../ws/support/emitter.ts';

describe('real clients over HTTP, unchanged', () => {
  let t: TestService;
  let key: string;
  let url: string;
  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey()).key;
    url = `${t.url}/v1/rpc/ethereum/devnet`;
  });
  afterAll(() => t?.stop());

  it('viem: call, getLogs and watchContractEvent/watchBlocks (polling)', async () => {
    const client = createPublicClient({
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
      pollingInterval: 100,
      cacheTime: 0,
    });
    const emitter = await deployEmitter(t.anvil.url, (method, params) => client.request({ method, params } as never));
    const seen: bigint[] = [];
    const blocks: bigint[] = [];
    const stopEvents = client.watchContractEvent({
      address: emitter,
      abi: pingAbi,
      onLogs: (logs) => seen.push(...logs.map((l) => l.args.value!)),
    });
    const stopBlocks = client.watchBlocks({ onBlock: (block) => blocks.push(block.number) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await emitPing(t.anvil.url, emitter, 7n);
    await emitPing(t.anvil.url, emitter, 8n);
    const deadline = Date.now() + 10_000;
    while ((seen.length < 2 || blocks.length < 1) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    stopEvents();
    stopBlocks();
    expect(seen).toEqual([7n, 8n]);
    expect(blocks.length).toBeGreaterThan(0);

    const logs = await client.getLogs({ address: emitter, event: pingAbi[0], fromBlock: 0n, toBlock: 'latest' });
    expect(logs.map((log) => log.args.value)).toEqual([7n, 8n]);
    const code = await client.getCode({ address: emitter });
    expect(code && code.length > 2).toBe(true);
    const result = await client.call({ to: emitter, data: '0x' });
    expect(result).toEqual({ data: undefined });
  });

  it('ethers v6 JsonRpcProvider', async () => {
    const request = new FetchRequest(url);
    request.setHeader('x-api-key', key);
    const provider = new JsonRpcProvider(request, 31337, { staticNetwork: true, batchMaxCount: 10 });
    try {
      const [blockNumber, network, balance] = await Promise.all([
        provider.getBlockNumber(),
        provider.getNetwork(),
        provider.getBalance('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'),
      ]);
      expect(blockNumber).toBeGreaterThanOrEqual(0);
      expect(network.chainId).toBe(31337n);
      expect(balance).toBeGreaterThan(0n);
      const block = await provider.getBlock(0);
      expect(block?.number).toBe(0);
    } finally {
      provider.destroy();
    }
  });
});
