import type { Devnet } from '../../src/chains/devnet.ts';
import type { RunningService } from '../../src/service/start-service.ts';
import type { TestDatabase } from '../support/database.ts';
import { startTestService } from '../support/service.ts';

/**
 * The whole service with a `tokens:` section, on the caller's anvil and database (the caller deploys
 * the contracts the settings name first). API role only, so no indexer writes rows the test did not.
 */
export async function startPricedService(options: {
  anvil: Devnet;
  database: TestDatabase;
  tokens: unknown;
  nfts?: unknown;
  files?: Record<string, string>;
}): Promise<{ service: RunningService; key: string; dataDir: string; stop(): Promise<void> }> {
  const running = await startTestService({
    sharing: { anvil: options.anvil, database: options.database },
    chains: [
      {
        chain: 'ethereum',
        network: 'devnet',
        chain_id: 31337,
        testnet: true,
        upstreams: [{ url: options.anvil.url }],
        indexer: { enabled: true, start_block: 0 },
      },
    ],
    settings: { tokens: options.tokens, ...(options.nfts ? { nfts: options.nfts } : {}) },
    files: options.files,
    roles: 'api',
  });
  const { key } = await running.createKey();
  return { service: running.service, key, dataDir: running.dataDir, stop: () => running.stop() };
}
