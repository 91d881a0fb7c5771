import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetInstaller } from '../../src/erc4337/contracts/create2-deployment.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { cliEnv, eventually, killAnvils, readAnvilPid, type StartedServer, startServer, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { devnetPaymasters } from './support.ts';

const startTimeoutMs = 90_000;

describe('blockyard start: the embedded devnet has the verifying paymasters', () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const anvilPids = new Set<number>();

  async function start(): Promise<StartedServer> {
    const started = await startServer({ env, cwd: dataDir, timeoutMs: startTimeoutMs });
    const pid = readAnvilPid(dataDir);
    if (pid !== undefined) anvilPids.add(pid);
    return started;
  }

  async function rpc(server: StartedServer, method: string, params: unknown[]): Promise<string> {
    const response = await fetch(`${server.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: string; error?: unknown };
    if (body.result === undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-paymaster-start-'));
    database = await createTestDatabase();
    env = cliEnv({ BLOCKYARD_DATA_DIR: dataDir, PORT: '0', DATABASE_URL: database.url, LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await stopAllCli();
    killAnvils(anvilPids);
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it(
    'installed, funded and watched at start; a restart on the same chain sends nothing',
    async () => {
      let server = await start();
      for (const address of [devnetPaymasters.v06, devnetPaymasters.v07]) {
        expect(await rpc(server, 'eth_getCode', [address, 'latest'])).toMatch(/^0x6080/);
      }
      const metrics = await eventually(
        async () => {
          const text = await (await fetch(`${server.url}/metrics`)).text();
          return text.includes(`paymaster="${devnetPaymasters.v06}"`) && text.includes(`paymaster="${devnetPaymasters.v07}"`)
            ? text
            : undefined;
        },
        { timeoutMs: 10_000, what: 'the deposit gauge' },
      );
      for (const address of [devnetPaymasters.v06, devnetPaymasters.v07]) {
        expect(metrics).toContain(
          `blockyard_paymaster_deposit_wei{network="ethereum/devnet",paymaster="${address}"} ${Number(parseEther('100'))}`,
        );
      }
      const installerNonce = await rpc(server, 'eth_getTransactionCount', [devnetInstaller.address, 'latest']);
      const stdout = server.cli.stdout();
      expect(stdout).toContain('gas sponsorship paymasters');
      expect(stdout.toLowerCase()).not.toContain(devnetSponsorKey.slice(2).toLowerCase());
      await server.cli.stop(20_000);

      server = await start();
      expect(await rpc(server, 'eth_getCode', [devnetPaymasters.v07, 'latest'])).toMatch(/^0x6080/);
      expect(await rpc(server, 'eth_getTransactionCount', [devnetInstaller.address, 'latest'])).toBe(installerNonce);
      await server.cli.stop(20_000);
    },
    startTimeoutMs * 2 + 60_000,
  );
});
