import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.ts';
import { instanceLockPath } from '../../src/service/instance-lock.ts';
import { joinRunningService } from '../../src/service/join-running-service.ts';

/**
 * `--join DIR` with a DATABASE_URL of another server: the joining process took the running service's
 * devnet but DATABASE_URL's database, so its index, deliveries and ops went to another database, and
 * nothing said so. The same database (another spelling, a password) is still accepted.
 */
describe('joinRunningService and DATABASE_URL', () => {
  let dir: string;
  const embedded = 'postgres://postgres:pw@127.0.0.1:45001/blockyard';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-join-'));
    // This test process stands in for the running service: alive, and a node process.
    const info = { pid: process.pid, startedAt: new Date().toISOString(), databaseUrl: embedded };
    writeFileSync(instanceLockPath(dir), JSON.stringify(info));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const configOf = (databaseUrl: string | undefined) => ({ dataDir: dir, databaseUrl, chains: [] }) as unknown as Config;

  it('without DATABASE_URL it takes the embedded database', async () => {
    expect((await joinRunningService(configOf(undefined))).databaseUrl).toBe(embedded);
  });

  it('DATABASE_URL naming another database is refused, naming both (no password)', async () => {
    await expect(joinRunningService(configOf('postgres://by:s3cret@127.0.0.1:5432/blockyard'))).rejects.toThrow(
      `--join: the Blockyard running on ${dir} (pid ${process.pid}) uses its embedded Postgres at 127.0.0.1:45001/blockyard, not DATABASE_URL's 127.0.0.1:5432/blockyard; leave DATABASE_URL (--database-url) unset to join it`,
    );
  });

  it('DATABASE_URL naming the same database is accepted as given', async () => {
    const same = 'postgresql://postgres:pw@127.0.0.1:45001/blockyard';
    expect((await joinRunningService(configOf(same))).databaseUrl).toBe(same);
  });
});
