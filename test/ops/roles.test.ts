import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { startService } from '../../src/service/start-service.ts';

describe('roles', () => {
  it('refuses to start when no role that is built yet is selected, opening nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-roles-'));
    try {
      const config = loadConfig({
        env: { BLOCKYARD_DATA_DIR: dataDir, BLOCKYARD_ROLES: 'webhooks,bundler', LOG_LEVEL: 'silent' },
        cwd: dataDir,
      });
      await expect(startService(config)).rejects.toThrow(
        /none of the roles webhooks, bundler is built yet; this version runs: api, indexer/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
