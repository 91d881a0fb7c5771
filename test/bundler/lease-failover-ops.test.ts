import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, parseAbiItem } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { type CliProcess, cliEnv, eventually, spawnCli, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { adminTokenForTests, devnetChain, startTestService, type TestService } from '../support/service.ts';
import { acceptingAccountCode, bareUserOperation } from './support.ts';

/** Accounts that accept any op; ERC-7562 lets a sender have 4 ops pending, so they take turns. */
const senders = [0, 1, 2, 3].map((i) => `0x${(0xa0b0 + i).toString(16).padStart(40, '0')}` as const);
const userOperationEvent = parseAbiItem(
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);
const opsBeforeKill = 4;
const opsAtKill = 8;

// biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
async function call(url: string, method: string, params: unknown[], key?: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

// The API in this process; two bundler processes with the same executor key on one database.
describe('bundler lease failover with ops in flight', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let api: TestService;
  let key: string;
  let dataDir: string;
  let configFile: string;

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    const chains = [devnetChain(anvil.url, { bundler: { enabled: true } })];
    api = await startTestService({ sharing: { anvil, database }, roles: 'api', chainsFor: () => chains });
    await installErc4337Contracts(anvil.url);
    for (const sender of senders) {
      await call(anvil.url, 'anvil_setCode', [sender, acceptingAccountCode]);
      await call(anvil.url, 'anvil_setBalance', [sender, '0xde0b6b3a7640000']);
    }
    key = (await api.createKey()).key;
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-bundler-lease-'));
    configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(configFile, stringify({ chains }));
  }, 120_000);
  afterAll(async () => {
    await stopAllCli();
    await api?.stop();
    await anvil?.stop();
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const startBundler = (name: string): CliProcess => {
    const dir = join(dataDir, name);
    mkdirSync(dir);
    return spawnCli(['start', '--roles', 'bundler'], {
      cwd: dir,
      env: cliEnv({
        DATABASE_URL: database.url,
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_DATA_DIR: dir,
        BLOCKYARD_ADMIN_TOKEN: adminTokenForTests,
        BLOCKYARD_BUNDLER_KEYS: devnetExecutorKeys[0],
        PORT: '0',
        LOG_LEVEL: 'info',
      }),
    });
  };

  const bundlerUrl = () => `${api.url}/v1/bundler/ethereum/devnet`;
  /** Estimates and sends op `index` (its own nonce key, so all may wait at once); its hash. */
  async function sendOp(index: number): Promise<string> {
    const base = bareUserOperation(senders[index % senders.length]!, `0x${(BigInt(index + 1) << 64n).toString(16)}`);
    const estimate = await call(bundlerUrl(), 'eth_estimateUserOperationGas', [base, entryPoint07Address], key);
    if (!estimate.result) throw new Error(`estimate: ${JSON.stringify(estimate)}`);
    const sent = await call(bundlerUrl(), 'eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address], key);
    if (typeof sent.result !== 'string') throw new Error(`send: ${JSON.stringify(sent)}`);
    return sent.result;
  }
  const receiptOf = async (hash: string) => (await call(bundlerUrl(), 'eth_getUserOperationReceipt', [hash], key)).result;

  it('every op accepted lands exactly once when the holder is killed with ops waiting', async () => {
    const first = startBundler('first');
    await first.waitForOutput(/bundler lease acquired/, 60_000);
    const second = startBundler('second');
    await second.waitForOutput(/standing by/, 60_000);

    const hashes: string[] = [];
    for (let i = 0; i < opsBeforeKill; i++) hashes.push(await sendOp(i));
    await eventually(async () => ((await Promise.all(hashes.map(receiptOf))).every(Boolean) ? true : undefined), {
      timeoutMs: 20_000,
      what: 'the first ops bundled by the holder',
    });
    // Ops accepted together, and the holder dies while they wait or are being bundled.
    const atKill = await Promise.all(Array.from({ length: opsAtKill }, (_, i) => sendOp(opsBeforeKill + i)));
    hashes.push(...atKill);
    first.child.kill('SIGKILL');
    await second.waitForOutput(/bundler lease acquired/, 5_000);
    await eventually(async () => ((await Promise.all(hashes.map(receiptOf))).every(Boolean) ? true : undefined), {
      timeoutMs: 30_000,
      what: 'every op bundled after the failover',
    });

    // From the chain, not the service's tables: one UserOperationEvent per op, each a success.
    const client = createPublicClient({ transport: http(anvil.url) });
    const logs = await client.getLogs({ address: entryPoint07Address, event: userOperationEvent, fromBlock: 0n });
    const landed = logs.map((log) => log.args.userOpHash!.toLowerCase());
    expect(landed.sort()).toEqual(hashes.map((hash) => hash.toLowerCase()).sort());
    expect(logs.every((log) => log.args.success)).toBe(true);
    const rows = await database.db.selectFrom('user_operations').select(['hash', 'status']).execute();
    expect(rows.filter((row) => row.status !== 'included')).toEqual([]);
    expect(second.exitInfo).toBeUndefined();
  }, 180_000);
});
