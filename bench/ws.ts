// WebSocket fan-out benchmark: N clients subscribed to newHeads through Blockyard, blocks mined on
// anvil, the delay of each head to each subscriber. Run: npm run bench:ws
// (BENCH_WS_CLIENTS, BENCH_WS_PROCESSES, BENCH_WS_BLOCKS, BENCH_WS_INTERVAL_MS, BENCH_DATABASE_URL, BENCH_CPU_PROF=1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { type Devnet, startDevnet } from '../src/chains/devnet.ts';
import { createBenchKey } from './support/admin.ts';
import { anvilCall } from './support/anvil-rpc.ts';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { printProfile } from './support/print-profile.ts';
import { readRssMiB, sampleRss } from './support/rss.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { type LoadProcess, startLoadProcesses } from './support/ws-load.ts';
import { monotonicUs } from './support/ws-protocol.ts';
import { type MinedHead, summarizeWsRun } from './support/ws-report.ts';
import { readWsBenchSettings } from './support/ws-settings.ts';

const adminToken = 'bench-admin-token-0123456789abcdef';
const targetP99Ms = 50;
const warmupBlocks = 3;
/** After the last block: time for its receipts to arrive before the report is asked for. */
const settleMs = 2_000;

const settings = readWsBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:ws] ${line}\n`);
/** The whole run is bounded: start-ups, connecting, mining and shutdowns. */
const deadlineMs = 240_000 + (warmupBlocks + settings.blocks) * settings.intervalMs;

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-ws-'));
let devnet: Devnet | undefined;
let blockyard: BlockyardService | undefined;
let loaders: LoadProcess[] = [];
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await Promise.allSettled(loaders.map((loader) => loader.stop()));
    await Promise.allSettled([blockyard?.server.stop(), devnet?.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  console.log(describeMachine());
  console.log(
    `settings: ${settings.clients} clients over ${settings.processes} load process(es), eth_subscribe newHeads; ` +
      `${settings.blocks} blocks, one evm_mine every ${settings.intervalMs} ms after ${warmupBlocks} warm-up blocks; ` +
      `blockyard on ${databaseLabel(settings.databaseUrl)}`,
  );

  devnet = await startDevnet({ logger: pino({ level: 'silent' }) });
  log(`anvil at ${devnet.url} (automine)`);
  blockyard = await startBlockyardService({
    workDir,
    adminToken,
    upstream: { url: devnet.url, ws_url: devnet.wsUrl },
    cpuProfile: settings.cpuProfile,
    ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
  });
  const { server, profileDir } = blockyard;
  log(`blockyard at ${server.url}${profileDir ? ` (profiling into ${profileDir})` : ''}`);
  const key = await createBenchKey(server.url, adminToken);
  const idleMiB = readRssMiB(server.pid);
  const rss = sampleRss(server.pid);

  const wsUrl = `${server.url.replace(/^http/, 'ws')}/v1/ws/ethereum/devnet?apiKey=${encodeURIComponent(key)}`;
  loaders = startLoadProcesses(settings.clients, settings.processes, deadlineMs);
  const connectStarted = Date.now();
  const ready = await Promise.all(loaders.map((loader) => loader.connect(wsUrl, 120_000)));
  const subscribed = ready.reduce((sum, answer) => sum + answer.subscribed, 0);
  log(`${subscribed} of ${settings.clients} clients subscribed in ${Date.now() - connectStarted} ms`);
  if (subscribed !== settings.clients) {
    throw new Error(
      `only ${subscribed} of ${settings.clients} clients subscribed: ${ready.flatMap((answer) => answer.errors).join('; ')}`,
    );
  }
  const connectedMiB = readRssMiB(server.pid);

  // Warm-up: the upstream subscription is opened by the first client; these blocks prove it delivers.
  for (let index = 0; index < warmupBlocks; index++) {
    await anvilCall(devnet.url, 'evm_mine');
    await sleep(settings.intervalMs);
  }
  await sleep(settleMs);
  for (const loader of loaders) loader.measure();
  await sleep(100);

  const startNumber = Number.parseInt(String(await anvilCall(devnet.url, 'eth_blockNumber')), 16);
  log(`mining ${settings.blocks} blocks from ${startNumber + 1}`);
  const heads: MinedHead[] = [];
  const windowFromUs = monotonicUs();
  for (let index = 1; index <= settings.blocks; index++) {
    const sentUs = monotonicUs();
    await anvilCall(devnet.url, 'evm_mine');
    const answeredUs = monotonicUs();
    heads.push({ number: startNumber + index, sentUs, answeredUs });
    const elapsedMs = (monotonicUs() - sentUs) / 1000;
    await sleep(Math.max(0, settings.intervalMs - elapsedMs));
  }
  const windowToUs = monotonicUs();
  await sleep(settleMs);
  const reports = await Promise.all(loaders.map((loader) => loader.report(30_000)));
  const maxMiB = rss.stop();

  const summary = summarizeWsRun({
    heads,
    processes: loaders.map((loader, index) => ({ clients: loader.clients, report: reports[index]! })),
    rss: { idleMiB, connectedMiB, maxMiB },
    targetP99Ms,
  });
  console.log('');
  console.log(summary.text);
  if (summary.missed > 0) process.exitCode = 1;
  if (profileDir) {
    // The profile is written when the process exits.
    await Promise.allSettled(loaders.map((loader) => loader.stop()));
    await server.stop();
    printProfile(profileDir, { fromUs: windowFromUs, toUs: windowToUs }, log);
  }
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanup();
  disarm();
}
