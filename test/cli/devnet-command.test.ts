import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, spawnCli, stopAllCli } from '../support/cli.ts';
import { closedPort } from '../support/closed-port.ts';

/** `blockyard devnet`: the compose file's shared chain (issue 36): anvil on a fixed address, with the ERC-4337 contracts. */
describe('blockyard devnet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-cli-devnet-'));
  afterAll(async () => {
    await stopAllCli();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('serves on the given port with Multicall3 and the EntryPoints installed, and stops on SIGTERM with exit 0', async () => {
    const port = await closedPort();
    const devnet = spawnCli(['devnet', '--port', String(port), '--chain-id', '1337', '--block-time', '1'], {
      env: cliEnv(),
      cwd: dir,
    });
    await devnet.waitForOutput(/devnet ready/, 60_000);
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${port}`) });
    expect(await client.getChainId()).toBe(1337);
    expect(await client.getCode({ address: entryPoint07Address })).toMatch(/^0x60/);
    expect(await client.getCode({ address: '0xcA11bde05977b3631167028862bE2a173976CA11' })).toMatch(/^0x60/);
    const exit = await devnet.stop(10_000);
    expect(exit.code).toBe(0);
  }, 90_000);

  it('with --block-time 0 mines one block for each transaction and none in between (automine)', async () => {
    const port = await closedPort();
    const devnet = spawnCli(['devnet', '--port', String(port), '--block-time', '0'], { env: cliEnv(), cwd: dir });
    await devnet.waitForOutput(/devnet ready/, 60_000);
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${port}`) });
    const before = await client.getBlockNumber({ cacheTime: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(before);
    const wallet = createWalletClient({ transport: http(`http://127.0.0.1:${port}`) });
    const [from] = await wallet.getAddresses();
    const hash = await wallet.sendTransaction({
      account: from!,
      chain: null,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
    });
    // Mined as it is sent, in the next block. anvil answers eth_sendTransaction once the transaction is
    // in its pool and mines it a moment later, so the receipt is waited for (bounded), not read at once.
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    expect(receipt.blockNumber).toBe(before + 1n);
    expect((await devnet.stop(10_000)).code).toBe(0);
  }, 90_000);

  it('refuses a bad flag value with exit 2 and a line naming the flag', async () => {
    const result = await runCli(['devnet', '--port', '70000'], { env: cliEnv(), cwd: dir, timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be a whole number from 1 to 65535');
  }, 60_000);
});
