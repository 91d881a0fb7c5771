// JSON-RPC proxy benchmark: direct anvil, a bare Fastify route and Blockyard, one run, one anvil.
// Run: npm run bench:rpc   (BENCH_DURATION, BENCH_WARMUP, BENCH_LATENCY_DURATION seconds; BENCH_CPU_PROF=1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { type Devnet, startDevnet } from '../src/chains/devnet.ts';
import { createBenchKey } from './support/admin.ts';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { type Measured, measure } from './support/measure.ts';
import { printProfile } from './support/print-profile.ts';
import { formatReport, type PendingRow } from './support/report.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { readBenchSettings } from './support/settings.ts';

const script = (name: string) => fileURLToPath(new URL(`./support/${name}`, import.meta.url));
const adminToken = 'bench-admin-token-0123456789abcdef';
/** Never cached (the node's version may change): every call reaches anvil. */
const missBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_clientVersion', params: [] });
/** Final from the first answer: every call after it is served from the cache. */
const hitBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
const json = { 'content-type': 'application/json' };
const names = {
  anvil: 'direct anvil',
  hello: 'fastify hello-world',
  miss: 'blockyard (cache miss)',
  hit: 'blockyard (cache hit)',
} as const;
const pending: PendingRow[] = [];

const settings = readBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:rpc] ${line}\n`);
const perTargetS = settings.warmupS + settings.durationS + settings.latencyDurationS + 40;
/** The whole run, start-ups and shutdowns included, is bounded. */
const deadlineMs = (4 * perTargetS + 90) * 1000;

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-'));
let devnet: Devnet | undefined;
const children: ChildServer[] = [];
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await Promise.allSettled([...children.map((child) => child.stop()), devnet?.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  console.log(describeMachine());
  console.log(
    `settings: ${settings.connections} connections for ${settings.durationS} s after ${settings.warmupS} s warm-up; ` +
      `1 connection for ${settings.latencyDurationS} s; POST web3_clientVersion (direct, miss), eth_chainId (hit); ` +
      `blockyard on ${databaseLabel(settings.databaseUrl)}`,
  );

  devnet = await startDevnet({ logger: pino({ level: 'silent' }) });
  log(`anvil at ${devnet.url} (automine)`);
  const results: Measured[] = [];
  results.push(
    await measure({ name: names.anvil, url: devnet.url, headers: json, body: missBody, pid: devnet.pid }, settings, log),
  );

  const hello = await startChildServer({ name: 'hello-world', script: script('hello-world-server.ts') });
  children.push(hello);
  results.push(
    await measure({ name: names.hello, url: hello.url, headers: json, body: missBody, pid: hello.pid }, settings, log),
  );
  await hello.stop();

  const blockyard = await startBlockyard(devnet.url);
  const key = await createBenchKey(blockyard.server.url, adminToken);
  const rpcUrl = `${blockyard.server.url}/v1/rpc/ethereum/devnet`;
  const missFromUs = monotonicUs();
  results.push(
    await measure(
      { name: names.miss, url: rpcUrl, headers: { ...json, 'x-api-key': key }, body: missBody, pid: blockyard.server.pid },
      settings,
      log,
    ),
  );
  const hitFromUs = monotonicUs();
  results.push(
    await measure(
      { name: names.hit, url: rpcUrl, headers: { ...json, 'x-api-key': key }, body: hitBody, pid: blockyard.server.pid },
      settings,
      log,
    ),
  );
  const hitToUs = monotonicUs();
  await blockyard.server.stop();

  console.log('');
  console.log(
    formatReport({
      rows: results,
      pending,
      baseline: names.hello,
      direct: names.anvil,
      proxied: names.miss,
      cached: names.hit,
      connections: settings.connections,
    }),
  );
  if (blockyard.profileDir) {
    printProfile(blockyard.profileDir, { fromUs: missFromUs, toUs: hitFromUs }, log, names.miss);
    printProfile(blockyard.profileDir, { fromUs: hitFromUs, toUs: hitToUs }, log, names.hit);
  }
} finally {
  await cleanup();
  disarm();
}

async function startBlockyard(upstreamUrl: string): Promise<BlockyardService> {
  const service = await startBlockyardService({
    workDir,
    adminToken,
    upstream: { url: upstreamUrl },
    cpuProfile: settings.cpuProfile,
    ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
  });
  children.push(service.server);
  log(`blockyard at ${service.server.url}${service.profileDir ? ` (profiling into ${service.profileDir})` : ''}`);
  return service;
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
