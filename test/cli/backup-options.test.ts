import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, stopAllCli } from '../support/cli.ts';

/**
 * `blockyard backup --out` that cannot be written is refused at once (exit 2, naming the path), before
 * any database is read or started: it used to fail only after the whole backup had been taken
 * (`EISDIR … rename '….partial'`, `ENOENT … open '….partial'`).
 */
describe('blockyard backup --out checks', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-cli-backup-options-'));
  });
  afterAll(async () => {
    await stopAllCli();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // A data directory with no database and no key: the check must come before either is looked for.
  const backup = (out: string) =>
    runCli(['backup', '--out', out, '--data-dir', join(dir, 'data')], {
      env: cliEnv({ BLOCKYARD_BACKUP_PASSPHRASE: 'a passphrase for the test' }),
      cwd: dir,
      timeoutMs: 60_000,
    });

  it('a directory as --out: exit 2, saying it is a directory', async () => {
    const target = join(dir, 'backups');
    mkdirSync(target);
    const result = await backup(target);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `blockyard: --out ${target} is a directory: give the path of the file to write, e.g. ${target}/blockyard.bkp\n`,
    );
    expect(readdirSync(target)).toEqual([]);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 60_000);

  it('a file in a directory that does not exist: exit 2, naming the directory', async () => {
    const target = join(dir, 'missing', 'b.bkp');
    const result = await backup(target);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(`blockyard: --out ${target}: the directory ${join(dir, 'missing')} does not exist\n`);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 60_000);
});
