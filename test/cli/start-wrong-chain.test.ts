import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Devnet, startDevnet } from '../../src/chains/devnet.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * A network whose only upstream serves another chain (Base's 8453 configured as Ethereum mainnet) must
 * not start: it would serve that chain's data under the wrong name.
 */
describe('blockyard start with an upstream of another chain (real process)', () => {
  let dataDir: string;
  let database: TestDatabase;
  let base: Devnet;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-wrong-chain-'));
    [database, base] = await Promise.all([
      createTestDatabase(),
      startDevnet({ chainId: 8453, logger: pino({ level: 'silent' }) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([base?.stop(), database?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits non-zero naming the network, the upstream and the chain id it found', async () => {
    const configFile = join(dataDir, 'blockyard.yaml');
    const chains = [{ chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams: [{ url: base.url }] }];
    writeFileSync(configFile, stringify({ chains }));
    const env = cliEnv({ BLOCKYARD_DATA_DIR: dataDir, BLOCKYARD_CONFIG: configFile, PORT: '0', DATABASE_URL: database.url });

    const run = await runCli(['start'], { env, cwd: dataDir, timeoutMs: 30_000 });

    expect(run.code, run.stderr).not.toBe(0);
    expect(run.code).not.toBeNull();
    const host = new URL(base.url).host;
    expect(run.stderr).toContain(
      `no upstream of ethereum/mainnet serves its chain (${host}: eth_chainId answered 0x2105 (8453), expected 0x1 (1))`,
    );
    expect(run.stdout).not.toMatch(/blockyard ready/);
  }, 60_000);
});
