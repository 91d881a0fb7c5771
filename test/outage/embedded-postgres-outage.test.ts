import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Devnet } from '../../src/chains/devnet.ts';
import { loadConfig } from '../../src/config/load.ts';
import { type RunningService, startService } from '../../src/service/start-service.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { adminTokenForTests } from '../support/service.ts';
import { type ProbeTarget, probeThroughout, recoveredWithin } from './probes.ts';
import { watchProcessHealth } from './process-health.ts';

/** Issue 20: the service's own embedded Postgres (no DATABASE_URL) killed: the service starts it again. */
describe('outage: the embedded Postgres killed', () => {
  let anvil: Devnet;
  let service: RunningService;
  let dataDir: string;
  let target: ProbeTarget;
  const health = watchProcessHealth();

  beforeAll(async () => {
    anvil = await startTestAnvil();
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-outage-embedded-'));
    const configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      stringify({
        chains: [
          {
            chain: 'ethereum',
            network: 'devnet',
            chain_id: 31337,
            testnet: true,
            upstreams: [{ url: anvil.url }],
            indexer: { enabled: true, start_block: 0 },
          },
        ],
      }),
    );
    const config = loadConfig({
      env: {
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'silent',
        BLOCKYARD_ADMIN_TOKEN: adminTokenForTests,
      },
      cwd: dataDir,
    });
    service = await startService(config);
    const admin = (path: string, body: unknown) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminTokenForTests}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      }).then((response) => response.json() as Promise<{ id: string; key: string }>);
    const account = await admin('/admin/accounts', { name: 'outage', plan: 'enterprise' });
    const { key } = await admin(`/admin/accounts/${account.id}/keys`, { name: 'outage', environment: 'test' });
    target = { url: service.url, key, adminToken: adminTokenForTests, holder: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' };
  }, 90_000);
  afterAll(async () => {
    await service?.stop('test finished');
    await anvil?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    health.stop();
  }, 60_000);

  it('answers 503 within 2 s meanwhile, and is back within 10 s without a restart of the service', async () => {
    await recoveredWithin(target, 5_000);
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    const during = await probeThroughout(target, 1_000);
    expect(during.some((result) => result.status === 503)).toBe(true);
    await recoveredWithin(target, 10_000 - (Date.now() - killedAt));
    expect(health.problems()).toEqual([]);
  }, 60_000);
});
