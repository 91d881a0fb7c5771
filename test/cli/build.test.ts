import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'blockyard.js');
const recordImports = join(root, 'test', 'support', 'hooks', 'record-imports.mjs');
/** What `blockyard start` needs and a one-line command must not pay for. */
const servicePackages = ['fastify', 'viem', 'pg', 'kysely', 'ws', 'undici', 'ioredis', 'pino', 'prom-client', 'solc'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'blockyard-build-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `node [--import hook] bin/blockyard.js …args` to its end, recording the modules it loads. */
function runBin(args: string[], entry = bin) {
  const file = join(dir, `imports-${Math.random().toString(36).slice(2)}.txt`);
  const result = spawnSync(process.execPath, ['--import', recordImports, entry, ...args], {
    cwd: dir,
    env: cliEnv({ RECORD_IMPORTS_FILE: file }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  const modules = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

const packagesIn = (modules: string[]) =>
  new Set(modules.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));

describe('the build (what npm install makes and npm start runs)', () => {
  it('exists: npm install builds it (npm run build makes it again)', () => {
    expect(existsSync(join(root, 'dist', 'cli', 'main.js')), 'no dist/cli/main.js: run `npm run build`').toBe(true);
  });

  it('`blockyard --help` runs the build and loads nothing but the CLI entry', () => {
    const run = runBin(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Usage:');
    expect(run.modules.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(run.modules.some((url) => url.includes('/src/'))).toBe(false);
    expect([...packagesIn(run.modules)]).toEqual([]);
  });

  it("`blockyard start --help` and an admin group's --help (or -h) print that command's usage, exit 0 and load nothing else", () => {
    // They were "Unknown option '--help'" with exit 2; migrate, devnet, backup and restore had their own.
    for (const [args, line] of [
      [['start', '--help'], 'blockyard start [--port N]'],
      [['start', '-h'], '[--shutdown-grace SECONDS] [--join DATA_DIR]'],
      [['keys', '--help'], 'blockyard keys rotate KEY_ID'],
      [['keys', 'create', '-h'], 'blockyard keys create --account ID'],
      [['index', '--help'], 'blockyard index backfill --network'],
      [['webhooks', 'list', '--help'], 'blockyard webhooks disable WEBHOOK_ID'],
    ] as const) {
      const run = runBin([...args]);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain(line);
      expect(run.stdout).not.toContain('blockyard accounts list');
      expect([...packagesIn(run.modules)]).toEqual([]);
    }
  });

  it('an admin command loads the config and an HTTP call, not the service', () => {
    // Port 9 (discard) on loopback: nothing listens, so the call fails at once after the loading.
    const run = runBin(['keys', 'list', '--account', 'acct_x', '--url', 'http://127.0.0.1:9', '--admin-token', 'x'.repeat(20)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach the server at http://127.0.0.1:9');
    expect(run.modules.some((url) => url.endsWith('/dist/config/load.js'))).toBe(true);
    const loaded = packagesIn(run.modules);
    for (const name of servicePackages) expect(loaded.has(name), `${name} was loaded`).toBe(false);
    // The settings validator is generated code (only Ajv's small runtime helpers load), and with no YAML file no YAML parser.
    expect(run.modules.filter((url) => /\/node_modules\/ajv\/dist\/(ajv|core)\.js$/.test(url))).toEqual([]);
    expect(loaded.has('yaml')).toBe(false);
  });

  it('without a build, says how to make one', () => {
    const copy = join(dir, 'no-build', 'bin');
    mkdirSync(copy, { recursive: true });
    copyFileSync(bin, join(copy, 'blockyard.js'));
    const run = runBin(['--help'], join(copy, 'blockyard.js'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('npm run build');
  });
});
