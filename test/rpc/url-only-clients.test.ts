import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castBinary } from '../support/cast-binary.ts';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
/** anvil's first dev account. */
const devKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const cast = castBinary();

/** Tools that take a URL and nothing else: the key is in it (`/v1/rpc/{chain}/{network}/{apiKey}`), no header is sent. */
describe('clients given only the URL with the key in its path', () => {
  let t: TestService;
  let url: string;
  beforeAll(async () => {
    t = await startTestService();
    url = `${t.url}/v1/rpc/ethereum/devnet/${(await t.createKey()).key}`;
  });
  afterAll(() => t?.stop());

  it.skipIf(cast === undefined)('Foundry: cast block-number, cast balance and cast send with only --rpc-url', async () => {
    const castRun = async (...args: string[]) =>
      (await run(cast!, [...args, '--rpc-url', url], { timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } })).stdout.trim();
    const direct = BigInt(((await (await fetch(t.anvil.url, rpcBody('eth_blockNumber'))).json()) as { result: string }).result);
    expect(BigInt(await castRun('block-number'))).toBe(direct);

    const recipient = Wallet.createRandom().address;
    expect(await castRun('balance', recipient)).toBe('0');
    await castRun('send', '--private-key', devKey, recipient, '--value', '12345');
    expect(await castRun('balance', recipient)).toBe('12345');
    expect(BigInt(await castRun('block-number'))).toBe(direct + 1n);
  });

  it('ethers: new JsonRpcProvider(url), reads and a signed transfer', async () => {
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: false });
    try {
      expect((await provider.getNetwork()).chainId).toBe(31337n);
      const recipient = Wallet.createRandom().address;
      const wallet = new Wallet(devKey, provider);
      const sent = await wallet.sendTransaction({ to: recipient, value: parseEther('0.5') });
      await sent.wait(1, 10_000);
      expect(await provider.getBalance(recipient)).toBe(parseEther('0.5'));
      expect(await provider.getBlockNumber()).toBeGreaterThan(0);
    } finally {
      provider.destroy();
    }
  });

  it('viem: http(url) with no headers, a batch of reads and a transfer', async () => {
    const transport = http(url, { batch: true, retryCount: 0 });
    const client = createPublicClient({ chain: foundry, transport, cacheTime: 0 });
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(devKey) });
    const recipient = Wallet.createRandom().address as `0x${string}`;
    const [chainId, before] = await Promise.all([client.getChainId(), client.getBalance({ address: recipient })]);
    expect(chainId).toBe(31337);
    expect(before).toBe(0n);
    const hash = await wallet.sendTransaction({ to: recipient, value: 777n });
    expect((await client.waitForTransactionReceipt({ hash, timeout: 10_000 })).status).toBe('success');
    expect(await client.getBalance({ address: recipient })).toBe(777n);
  });
});

function rpcBody(method: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(5_000),
  };
}
