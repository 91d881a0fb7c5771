import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { testServerUrl } from '../support/database.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

// `npm test` on a machine with only Node and npm: what it prints when a server is missing, and when a
// file fails in its setup (its tests never run, so no test counts as failed).
it('the summary line counts failed files, and tests needing a missing server skip with what to install', () => {
  const emptyPath = mkdtempSync(join(tmpdir(), 'blockyard-empty-path-'));
  try {
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'test/support/fixtures/summary.vitest.config.ts'],
      {
        cwd: root,
        // No program on PATH (so no redis-server); the database is this run's server, so nothing is spawned for it.
        env: { ...process.env, PATH: emptyPath, DATABASE_URL: testServerUrl(), NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(1);
    expect(output).toMatch(/skipped 10 test\(s\): needs redis-server, which is not installed here: apt-get install redis-server/);
    expect(output).toMatch(/\n0 passed, 0 failed, 11 skipped; 1 of 2 test files failed\n/);
  } finally {
    rmSync(emptyPath, { recursive: true, force: true });
  }
}, 150_000);
