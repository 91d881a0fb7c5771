import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { type RunningService, startService } from '../../src/service/start-service.ts';
import type { TestDatabase } from '../support/database.ts';

const adminToken = 'tokens-test-admin-token-0123456789';

/**
 * The whole service (API role only, so no indexer writes rows the test did not) with a `tokens:`
 * section, which `startTestService` does not take. The anvil and database belong to the caller.
 */
export async function startPricedService(options: {
  anvilUrl: string;
  database: TestDatabase;
  tokens: unknown;
  nfts?: unknown;
  files?: Record<string, string>;
}): Promise<{ service: RunningService; key: string; dataDir: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-tokens-'));
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dataDir, name), content);
  const configFile = join(dataDir, 'blockyard.yaml');
  const chains = [
    {
      chain: 'ethereum',
      network: 'devnet',
      chain_id: 31337,
      testnet: true,
      upstreams: [{ url: options.anvilUrl }],
      indexer: { enabled: true },
    },
  ];
  writeFileSync(configFile, stringify({ chains, tokens: options.tokens, ...(options.nfts ? { nfts: options.nfts } : {}) }));
  const config = loadConfig({
    env: {
      BLOCKYARD_CONFIG: configFile,
      BLOCKYARD_DATA_DIR: dataDir,
      BLOCKYARD_ROLES: 'api',
      PORT: '0',
      LOG_LEVEL: 'silent',
      BLOCKYARD_ADMIN_TOKEN: adminToken,
    },
    cwd: dataDir,
  });
  let service: RunningService;
  try {
    service = await startService(config, { database: options.database });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return (await response.json()) as { id: string; key: string };
  };
  const account = await admin('/admin/accounts', { name: 'tokens', plan: 'enterprise' });
  const { key } = await admin(`/admin/accounts/${account.id}/keys`, { name: 'tokens', environment: 'test' });
  return {
    service,
    key,
    dataDir,
    async stop() {
      await service.stop('test finished');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
