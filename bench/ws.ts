// WebSocket fan-out benchmark: N clients subscribed to newHeads, blocks mined on anvil, the delay of
// each head to each subscriber; through Blockyard and, as the baseline in the same run, through a raw
// server that writes one pre-framed buffer per client. Run: npm run bench:ws
// (BENCH_WS_CLIENTS, BENCH_WS_PROCESSES, BENCH_WS_BLOCKS, BENCH_WS_INTERVAL_MS, BENCH_WS_ROUNDS,
// BENCH_WS_LOGS, BENCH_WS_BUSY, BENCH_DATABASE_URL, BENCH_CPU_PROF=1)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { type Devnet, startDevnet } from '../src/chains/devnet.ts';
import { createBenchKey } from './support/admin.ts';
import { anvilCall } from './support/anvil-rpc.ts';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { readCpuMs } from './support/cpu-time.ts';
import { printProfile } from './support/print-profile.ts';
import { readRssMiB, sampleRss } from './support/rss.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { type CpuBurners, startCpuBurners } from './support/ws-cpu-burners.ts';
import { type LoadProcess, startLoadProcesses } from './support/ws-load.ts';
import { logsAddress, monotonicUs, type WsEndpoint } from './support/ws-protocol.ts';
import { type MinedHead, summarizeWsRun, targetNames, type WsPhase, type WsTarget } from './support/ws-report.ts';
import { readWsBenchSettings } from './support/ws-settings.ts';

const targetP99Ms = 50;
/** Issue 37: at more than 1,000 subscribers, every one within this of the node's block (the evm_mine answer). */
const manyTargetP99Ms = 100;
/**
 * The service's default limits: 1,000 sockets per account and 1,000 per client address. More clients
 * are tenants of their own (an account and a key each), each connecting from its own loopback address
 * (127.0.0.2, 127.0.0.3, ...; not 127.0.0.1, whose per-address count also holds this process's admin
 * calls), as many users on many hosts would: the defaults stay as npm start has them.
 */
const clientsPerTenant = 1_000;
const localAddressOf = (tenant: number) => `127.0.0.${tenant + 2}`;
/** Runtime code of the `logs` clients' contract: LOG0 of no data on any call. */
const emitterCode = '0x60006000a000';
/** anvil's first dev account (unlocked): it sends each block's transaction when `logs` clients run. */
const devAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const warmupBlocks = 10;
/** After the last block: time for its receipts to arrive before the report is asked for. */
const settleMs = 2_000;
/** CPU is read this long after the last block: every fan-out is over by then, little idle time is added. */
const cpuSettleMs = 500;
const idleCpuWindowMs = 2_000;
const rawServerScript = fileURLToPath(new URL('./support/ws-raw-fanout-server.ts', import.meta.url));

const settings = readWsBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:ws] ${line}\n`);
/** The whole run is bounded: start-ups, connecting, mining and shutdowns. */
const phaseMs = (warmupBlocks + settings.blocks) * settings.intervalMs + 2 * settleMs + 60_000;
const deadlineMs = 180_000 + 2 * settings.rounds * phaseMs;

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-ws-'));
let devnet: Devnet | undefined;
let baseline: ChildServer | undefined;
let blockyard: BlockyardService | undefined;
let loaders: LoadProcess[] = [];
let burners: CpuBurners | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    burners?.stop();
    await Promise.allSettled(loaders.map((loader) => loader.stop()));
    await Promise.allSettled([blockyard?.server.stop(), baseline?.stop(), devnet?.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  console.log(describeMachine());
  console.log(
    `settings: ${settings.clients} clients over ${settings.processes} load process(es), eth_subscribe newHeads; ` +
      `${settings.rounds} round(s) of one window per server, each ${settings.blocks} blocks, one evm_mine every ` +
      `${settings.intervalMs} ms after ${warmupBlocks} warm-up blocks; blockyard on ${databaseLabel(settings.databaseUrl)}` +
      (settings.logsPercent > 0
        ? `; ${settings.logsPercent}% of the clients subscribe to logs of one contract instead, and each block is a transaction to it that emits one log`
        : '') +
      (settings.busy > 0 ? `; ${settings.busy} busy-loop process(es) competing for the cores` : ''),
  );

  devnet = await startDevnet({ logger: pino({ level: 'silent' }) });
  log(`anvil at ${devnet.url} (automine)`);
  if (settings.logsPercent > 0) await anvilCall(devnet.url, 'anvil_setCode', [logsAddress, emitterCode]);
  /** One block: an empty one, or (with logs clients) one holding a transaction that emits a log. */
  const mine = () =>
    settings.logsPercent > 0
      ? anvilCall(devnet!.url, 'eth_sendTransaction', [{ from: devAccount, to: logsAddress }])
      : anvilCall(devnet!.url, 'evm_mine');
  baseline = await startChildServer({
    name: 'raw fan-out',
    script: rawServerScript,
    env: { ...process.env, BENCH_WS_UPSTREAM: devnet.wsUrl },
    startTimeoutMs: 30_000,
  });
  log(`raw fan-out server at ${baseline.url}`);
  blockyard = await startBlockyardService({
    workDir,
    upstream: { url: devnet.url, ws_url: devnet.wsUrl },
    cpuProfile: settings.cpuProfile,
    ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
  });
  const { server, profileDir } = blockyard;
  log(`blockyard at ${server.url}${profileDir ? ` (profiling into ${profileDir})` : ''}`);
  const tenants = Math.ceil(settings.clients / clientsPerTenant);
  const keys: string[] = [];
  for (let tenant = 0; tenant < tenants; tenant++)
    keys.push(await createBenchKey(server.url, blockyard.adminToken, {}, tenant === 0 ? 'bench' : `bench-${tenant + 1}`));
  if (tenants > 1) log(`${tenants} tenants of at most ${clientsPerTenant} clients, each from its own loopback address`);

  const pids: Record<WsTarget, number> = { baseline: baseline.pid, blockyard: server.pid };
  const blockyardWs = `${server.url.replace(/^http/, 'ws')}/v1/ws/ethereum/devnet?apiKey=`;
  const urlOf: Record<WsTarget, (tenant: number) => string> = {
    baseline: () => baseline!.url.replace(/^http/, 'ws'),
    blockyard: (tenant) => `${blockyardWs}${encodeURIComponent(keys[tenant]!)}`,
  };
  /** Each load process's endpoints: client i of the run belongs to tenant floor(i / clientsPerTenant). */
  const endpointsOf = (target: WsTarget): WsEndpoint[][] => {
    let first = 0;
    return loaders.map((loader) => {
      const endpoints = Array.from({ length: loader.clients }, (_, index) => {
        const tenant = Math.floor((first + index) / clientsPerTenant);
        const subscribe = (first + index) % 100 < settings.logsPercent ? 'logs' : 'newHeads';
        return { url: urlOf[target](tenant), localAddress: localAddressOf(tenant), subscribe } as const;
      });
      first += loader.clients;
      return endpoints;
    });
  };
  const idleFrom = { baseline: readCpuMs(pids.baseline), blockyard: readCpuMs(pids.blockyard) };
  await sleep(idleCpuWindowMs);
  const idleCpuMsPerS = {
    baseline: ((readCpuMs(pids.baseline) - idleFrom.baseline) * 1000) / idleCpuWindowMs,
    blockyard: ((readCpuMs(pids.blockyard) - idleFrom.blockyard) * 1000) / idleCpuWindowMs,
  };

  const idleMiB = readRssMiB(server.pid);
  let connectedMiB = Number.NaN;
  const rss = sampleRss(server.pid);
  loaders = startLoadProcesses(settings.clients, settings.processes, deadlineMs);
  let profileWindow: { fromUs: number; toUs: number } | undefined;

  /** Every client subscribed to `target`, warm-up blocks, then the measured blocks; clients closed after. */
  const measure = async (target: WsTarget, round: number): Promise<WsPhase> => {
    const loadAverage = loadavg()[0]!;
    const connectStarted = Date.now();
    const endpoints = endpointsOf(target);
    const ready = await Promise.all(loaders.map((loader, index) => loader.connect(endpoints[index]!, 120_000)));
    const subscribed = ready.reduce((sum, answer) => sum + answer.subscribed, 0);
    log(
      `round ${round}, ${targetNames[target]}: ${subscribed} of ${settings.clients} clients subscribed in ${Date.now() - connectStarted} ms`,
    );
    if (subscribed !== settings.clients) {
      throw new Error(
        `only ${subscribed} of ${settings.clients} clients subscribed to ${target}: ${ready.flatMap((answer) => answer.errors).join('; ')}`,
      );
    }
    if (target === 'blockyard' && Number.isNaN(connectedMiB)) connectedMiB = readRssMiB(server.pid);

    // Warm-up: Blockyard's upstream subscription opens with its first client; these blocks prove it delivers.
    for (let index = 0; index < warmupBlocks; index++) {
      await mine();
      await sleep(settings.intervalMs);
    }
    await sleep(settleMs);
    for (const loader of loaders) loader.measure();
    await sleep(100);

    const startNumber = Number.parseInt(String(await anvilCall(devnet!.url, 'eth_blockNumber')), 16);
    const heads: MinedHead[] = [];
    const cpuFrom = readCpuMs(pids[target]);
    const fromUs = monotonicUs();
    for (let index = 1; index <= settings.blocks; index++) {
      const sentUs = monotonicUs();
      await mine();
      const answeredUs = monotonicUs();
      heads.push({ number: startNumber + index, sentUs, answeredUs });
      const elapsedMs = (monotonicUs() - sentUs) / 1000;
      await sleep(Math.max(0, settings.intervalMs - elapsedMs));
    }
    await sleep(cpuSettleMs);
    const serverCpuMs = readCpuMs(pids[target]) - cpuFrom;
    if (target === 'blockyard') profileWindow ??= { fromUs, toUs: monotonicUs() };
    await sleep(settleMs - cpuSettleMs);
    const reports = await Promise.all(loaders.map((loader) => loader.report(30_000)));
    const closed = await Promise.all(loaders.map((loader) => loader.disconnect(30_000)));
    const terminated = closed.reduce((sum, answer) => sum + answer.terminated, 0);
    if (terminated > 0) log(`round ${round}, ${target}: ${terminated} clients did not close in time and were terminated`);
    return {
      target,
      round,
      loadAverage,
      heads,
      processes: loaders.map((loader, index) => ({ clients: loader.clients, report: reports[index]! })),
      serverCpuMs,
    };
  };

  if (settings.busy > 0) burners = startCpuBurners(settings.busy, deadlineMs);
  const phases: WsPhase[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const order: WsTarget[] = round % 2 === 1 ? ['baseline', 'blockyard'] : ['blockyard', 'baseline'];
    for (const target of order) phases.push(await measure(target, round));
  }
  const maxMiB = rss.stop();
  burners?.stop();

  const summary = summarizeWsRun({
    phases,
    rss: { idleMiB, connectedMiB, maxMiB },
    idleCpuMsPerS,
    targetP99Ms,
    ...(settings.clients > clientsPerTenant ? { manyTargetP99Ms } : {}),
  });
  console.log('');
  console.log(summary.text);
  console.log(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  if (summary.missed > 0) process.exitCode = 1;
  if (profileDir && profileWindow) {
    // The profile is written when the process exits.
    await Promise.allSettled(loaders.map((loader) => loader.stop()));
    await server.stop();
    printProfile(profileDir, profileWindow, log, "Blockyard's first mining window");
  }
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanup();
  disarm();
}
