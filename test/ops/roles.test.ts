import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config/load.ts';
import { startService } from '../../src/service/start-service.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase } from '../support/database.ts';

describe('roles', () => {
  it('runs an indexer-only process: it indexes, serves health and metrics, and no /v1 or WebSocket', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-roles-'));
    const [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    const configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        chains: [
          {
            chain: 'ethereum',
            network: 'devnet',
            chain_id: 31337,
            block_time_s: 0.2,
            upstreams: [{ url: anvil.url }],
            indexer: { enabled: true, start_block: 0 },
          },
        ],
      }),
    );
    const config = loadConfig({
      env: {
        BLOCKYARD_DATA_DIR: dataDir,
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_ROLES: 'indexer',
        PORT: '0',
        LOG_LEVEL: 'silent',
      },
      cwd: dataDir,
    });
    const service = await startService(config, { database });
    try {
      expect(service.devKey).toBeUndefined();
      await service.indexers[0]!.waitFor(undefined, 30_000);
      const health = await fetch(`${service.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
      expect(health.status).toBe(200);
      const metrics = await (await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      expect(metrics).toContain('blockyard_indexer_indexed_block{network="ethereum/devnet"}');
      const rpc = await fetch(`${service.url}/v1/rpc/ethereum/devnet`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        signal: AbortSignal.timeout(10_000),
      });
      expect(rpc.status).toBe(404);
      const upgraded = await new Promise<boolean>((resolve) => {
        const socket = new WebSocket(`${service.url.replace('http', 'ws')}/v1/ws/ethereum/devnet`);
        socket.on('open', () => {
          socket.terminate();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      expect(upgraded).toBe(false);
    } finally {
      await service.stop('test finished');
      await Promise.all([anvil.stop(), database.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
