import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * A port another process holds: the start used to end with Node's bare "listen EADDRINUSE", naming no
 * setting. It must name the address and the settings that choose another port, and exit non-zero.
 */
describe('blockyard start on a port another process holds (real process)', () => {
  let dataDir: string;
  let database: TestDatabase;
  let anvil: Devnet;
  let holder: Server;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-port-in-use-'));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    [database, anvil] = await Promise.all([createTestDatabase(), startTestAnvil()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([anvil?.stop(), database?.close(), new Promise((resolve) => holder?.close(resolve))]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits non-zero naming the address and how to choose another port', async () => {
    const port = (holder.address() as { port: number }).port;
    const configFile = join(dataDir, 'blockyard.yaml');
    const chains = [{ chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: anvil.url }] }];
    writeFileSync(configFile, stringify({ chains }));
    const env = cliEnv({
      BLOCKYARD_DATA_DIR: dataDir,
      BLOCKYARD_CONFIG: configFile,
      PORT: String(port),
      DATABASE_URL: database.url,
    });

    const run = await runCli(['start'], { env, cwd: dataDir, timeoutMs: 45_000 });

    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `blockyard: cannot listen on 127.0.0.1:${port}: another process is using it; stop it or choose another port with --port, PORT or port: in blockyard.yaml`,
    );
  }, 90_000);
});
