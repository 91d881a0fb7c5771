// The README's "First calls" are what a newcomer runs first against `npm start`: each one runs here, as
// written, against the service started as `npm start` starts it (embedded devnet, dev key).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { type RunningService, startService } from '../../src/service/start-service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const run = promisify(execFile);
const readmeBase = 'http://127.0.0.1:8080';
const castBin = new URL('../../node_modules/.bin/cast', import.meta.url).pathname;

/** The commands of the README's first `sh` block under "## First calls", continuation lines joined. */
function firstCalls(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('## First calls');
  expect(start, "the README's 'First calls' section").toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))![1]!;
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Shell words of a simple command: bare words and single- or double-quoted strings, `$KEY` expanded outside single quotes. */
function shellWords(command: string, key: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    words.push(match[1] ?? (match[2] ?? match[3]!).replaceAll('$KEY', key));
  }
  return words;
}

/** A README curl line as a fetch to the running service: `-H`, `-X`, `-d` and the URL. */
async function curl(words: string[], base: string): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  let method = 'GET';
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-H') {
      const [name, ...value] = words[++i]!.split(':');
      headers[name!.trim().toLowerCase()] = value.join(':').trim();
    } else if (word === '-X') method = words[++i]!;
    else if (word === '-d') {
      body = words[++i]!;
      if (method === 'GET') method = 'POST';
    } else if (word.startsWith(readmeBase)) url = `${base}${word.slice(readmeBase.length)}`;
    else throw new Error(`a curl option this test does not read: ${word}`);
  }
  // curl sends -d bodies as application/x-www-form-urlencoded; the JSON-RPC endpoint reads them as JSON all the same.
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(url!, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  return { status: response.status, body: await response.json() };
}

describe("the README's first calls", () => {
  let dataDir: string;
  let database: TestDatabase;
  let service: RunningService;
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-readme-'));
    database = await createTestDatabase();
    const config = loadConfig({
      env: { BLOCKYARD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', BLOCKYARD_BLOCK_TIME: '0.5' },
      cwd: dataDir,
    });
    service = await startService(config, { database });
    key = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
    await service.indexers[0]!.waitFor(undefined, 60_000);
  }, 180_000);

  afterAll(async () => {
    await service?.stop('test finished');
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the dev key from the file the README names, and every call answers', async () => {
    const commands = firstCalls();
    expect(commands[0]).toBe('KEY=$(cat .blockyard/dev-api-key)');
    expect(key).toBe(service.devKey!.key);
    const curls = commands.filter((command) => command.startsWith('curl '));
    expect(curls.length).toBeGreaterThanOrEqual(4);
    for (const command of curls) {
      const { status, body } = await curl(shellWords(command, key), service.url);
      expect(status, command).toBe(200);
      const answers = Array.isArray(body) ? body : [body];
      for (const answer of answers) expect(answer, command).not.toHaveProperty('error');
      if (command.includes('"jsonrpc"')) for (const answer of answers) expect(answer, command).toHaveProperty('result');
    }
  }, 60_000);

  it('the cast line prints the block number', async () => {
    const [command] = firstCalls().filter((line) => line.startsWith('npx cast '));
    expect(command).toBeDefined();
    const args = shellWords(command!, key)
      .slice(2)
      .map((word) => (word.startsWith(readmeBase) ? `${service.url}${word.slice(readmeBase.length)}` : word));
    const { stdout } = await run(castBin, args, { timeout: 60_000 });
    expect(stdout.trim()).toMatch(/^\d+$/);
  }, 90_000);
});
