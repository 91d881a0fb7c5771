import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { startService } from '../src/service/start-service.ts';

/**
 * The OpenAPI document the service serves, read from a throwaway development instance (embedded
 * Postgres and devnet in a temp directory): the routes as the service registers them, nothing copied.
 */
export async function servedOpenApiDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-openapi-'));
  try {
    const config = loadConfig({
      env: { BLOCKYARD_DATA_DIR: dataDir, BLOCKYARD_MODE: 'development', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
      cwd: dataDir,
    });
    const service = await startService(config);
    try {
      const response = await fetch(`${service.url}/v1/openapi.json`, { signal: AbortSignal.timeout(10_000) });
      return await response.json();
    } finally {
      await service.stop('document read');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
