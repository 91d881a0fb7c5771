// Webhook benchmark, on the service as `npm start` runs it (build, defaults, embedded devnet mining a
// block a second, embedded Postgres, all roles in one process):
// 1. latency: a new_block webhook; each block's head on the service's own WebSocket (newHeads) -> its
//    POST at a local receiver (node:http, 200 at once, in its own process);
// 2. throughput: token_transfer webhooks paused while a BenchToken transfer storm queues their
//    deliveries, then resumed: deliveries per second until every one is received and logged, against a
//    bare undici loop POSTing as many similar bodies to the same receiver (no database).
// Run: npm run bench:webhooks   (BENCH_WEBHOOK_BLOCKS, BENCH_WEBHOOK_DELIVERIES, BENCH_WEBHOOK_HOOKS,
// BENCH_WEBHOOK_CONCURRENCY, BENCH_DATABASE_URL with BENCH_DATABASE_PID (its postmaster, to count its CPU),
// BENCH_CPU_PROF=1)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { compileContracts } from '../src/contracts/compile.ts';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { generateTransfers } from './support/indexer-workload.ts';
import { printProfile } from './support/print-profile.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { webhookApi } from './support/webhook-api.ts';
import { type BaselineRun, runBaseline } from './support/webhook-baseline.ts';
import { cpuBetween, readTreeCpu } from './support/webhook-cpu.ts';
import { type BenchDatabase, embeddedDatabaseUrl, openBenchDatabase } from './support/webhook-database.ts';
import { type HeadWatcher, watchHeads } from './support/webhook-heads.ts';
import { monotonicUs, type ReceiverSample, type ReceiverStats, wallMs } from './support/webhook-protocol.ts';
import { type Distribution, formatLatencyReport, formatThroughputReport, serviceLabel } from './support/webhook-report.ts';
import { readWebhookBenchSettings } from './support/webhook-settings.ts';

/** Every phase (latency, queueing, delivering, a baseline loop) fails past this. */
const phaseMs = 300_000;
/** Under bench/run.ts's 10-minute cap. */
const deadlineMs = 570_000;
/** The first new_block deliveries are not measured (the matcher's cursor, first connections). */
const warmupBlocks = 3;
/** BenchToken transfers per transaction; 400 first-time mints cost ~10M gas, under anvil's 30M block limit. */
const perTransaction = 400;
const receiverScript = fileURLToPath(new URL('./support/webhook-receiver.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

const settings = readWebhookBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:webhooks] ${line}\n`);

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-webhooks-'));
let blockyard: BlockyardService | undefined;
let receiver: ChildServer | undefined;
let heads: HeadWatcher | undefined;
let database: BenchDatabase | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    heads?.close();
    await database?.close().catch(() => undefined);
    await Promise.allSettled([blockyard?.server.stop(), receiver?.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  },
});

/** Polls `check` every `intervalMs` until it returns a value; past `timeoutMs`, fails naming `what` and the last state. */
async function waitFor<T>(
  what: string,
  check: () => Promise<{ done: T } | { state: string }>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? phaseMs;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if ('done' in result) return result.done;
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs / 1000} s (${result.state})`);
    await sleep(options.intervalMs ?? 100);
  }
}

/** The commit measured, and whether src/ differs from it (the build is made from the working tree). */
function describeSource(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', timeout: 10_000 }).trim();
  try {
    const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `source: commit ${git('rev-parse', '--short', 'HEAD')}${changed > 0 ? `, ${changed} file(s) under src/ changed since` : ''}`;
  } catch {
    return 'source: not a git checkout';
  }
}

async function receiverGet<T>(path: string): Promise<T> {
  const response = await fetch(`${receiver!.url}${path}`, { signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`receiver GET ${path} answered ${response.status}`);
  return (await response.json()) as T;
}
const receiverStats = (group: string) => receiverGet<ReceiverStats>(`/stats/${group}`);

try {
  console.log(describeMachine());
  console.log(describeSource());
  console.log(
    `settings: blockyard as npm start runs it (build, log level info, ${databaseLabel(settings.databaseUrl)}, embedded devnet ` +
      `mining 1 block/s, all roles in one process); latency: ${settings.blocks} new_block deliveries after ${warmupBlocks} warm-up; ` +
      `throughput: ${settings.deliveries} token_transfer deliveries over ${settings.hooks} webhooks, baseline ${settings.concurrency} in flight`,
  );

  blockyard = await startBlockyardService({
    workDir,
    cpuProfile: settings.cpuProfile,
    ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
  });
  const { server, profileDir } = blockyard;
  const devnetUrl = blockyard.devnetUrl;
  if (!devnetUrl) throw new Error('the service printed no embedded devnet URL');
  log(`blockyard at ${server.url}, devnet at ${devnetUrl}${profileDir ? ` (profiling into ${profileDir})` : ''}`);
  const key = readFileSync(join(workDir, 'blockyard', 'dev-api-key'), 'utf8').trim();
  const api = webhookApi(server.url, key);
  receiver = await startChildServer({ name: 'webhook receiver', script: receiverScript, startTimeoutMs: 30_000 });
  log(`receiver at ${receiver.url}`);
  database = await openBenchDatabase(settings.databaseUrl ?? embeddedDatabaseUrl(blockyard.logFile));

  // 1. Latency.
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/v1/ws/ethereum/devnet?apiKey=${encodeURIComponent(key)}`;
  heads = await watchHeads(wsUrl, 30_000);
  const latencyHook = await api.create({ url: `${receiver.url}/latency`, event_type: 'new_block' });
  log(`new_block webhook ${latencyHook}: waiting for ${warmupBlocks + settings.blocks} deliveries`);
  const latencyStats = await waitFor<ReceiverStats>(
    'new_block deliveries',
    async () => {
      const stats = await receiverStats('latency');
      return stats.count >= warmupBlocks + settings.blocks ? { done: stats } : { state: `${stats.count} received` };
    },
    { timeoutMs: Math.min(phaseMs, (warmupBlocks + settings.blocks) * 1000 * 3 + 30_000), intervalMs: 500 },
  );
  await api.setStatus(latencyHook, 'paused');
  const steps = new Map((await database.latencySteps(latencyHook)).map((step) => [step.block, step]));
  await api.remove(latencyHook);
  heads.close();

  const receipts: { block: number; us: number; wallMs: number }[] = [];
  const flat = latencyStats.heads ?? [];
  for (let at = 0; at + 2 < flat.length; at += 3) receipts.push({ block: flat[at]!, us: flat[at + 1]!, wallMs: flat[at + 2]! });
  receipts.sort((a, b) => a.block - b.block);
  const measured = receipts.slice(warmupBlocks, warmupBlocks + settings.blocks);
  const fromHead: number[] = [];
  const fromTimestamp: number[] = [];
  const headToWrite: number[] = [];
  const writeToMatch: number[] = [];
  const matchToSend: number[] = [];
  const sendToReceive: number[] = [];
  let missingHeads = 0;
  for (const receipt of measured) {
    const head = heads.arrivals.get(receipt.block);
    if (!head) {
      missingHeads++;
      continue;
    }
    fromHead.push((receipt.us - head.us) / 1000);
    fromTimestamp.push(receipt.wallMs - head.timestampMs);
    const step = steps.get(receipt.block);
    if (step) {
      headToWrite.push(step.indexedMs - head.wallMs);
      writeToMatch.push(step.matchedMs - step.indexedMs);
      matchToSend.push(step.sentMs - step.matchedMs);
      sendToReceive.push(receipt.wallMs - step.sentMs);
    }
  }
  const latencyRows: Distribution[] = [
    { name: 'block timestamp -> POST received (info; whole-second timestamps)', values: fromTimestamp },
    { name: '  step: head on WebSocket -> indexer write transaction starts', values: headToWrite },
    { name: '  step: -> matcher round starts (webhook_events.created_at)', values: writeToMatch },
    { name: '  step: -> POST starts (webhook_attempts.attempted_at)', values: matchToSend },
    { name: '  step: -> POST received', values: sendToReceive },
  ];
  const latency = formatLatencyReport({
    headline: { name: "head on the service's WebSocket -> POST received", values: fromHead },
    rows: latencyRows,
    missingHeads,
    duplicates: latencyStats.duplicates,
    wsProblems: heads.problems,
  });
  log(`latency: ${fromHead.length} blocks measured`);

  // 2. Throughput: webhooks created and paused before any transfer, so every match waits in the outbox.
  const artifacts = await compileContracts();
  const hooks: string[] = [];
  for (let index = 0; index < settings.hooks; index++) {
    const id = await api.create({ url: `${receiver.url}/throughput/${index}`, event_type: 'token_transfer' });
    await api.setStatus(id, 'paused');
    hooks.push(id);
  }
  // One test event (sent even while paused, shaped like a real token_transfer) gives the baseline its body.
  const sampleHook = await api.create({ url: `${receiver.url}/sample`, event_type: 'token_transfer' });
  await api.setStatus(sampleHook, 'paused');
  const testAnswer = await fetch(`${server.url}/v1/webhooks/${sampleHook}/test`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    signal: AbortSignal.timeout(10_000),
  });
  if (testAnswer.status !== 202) throw new Error(`POST /v1/webhooks/${sampleHook}/test answered ${testAnswer.status}`);
  const testSample = await waitFor<ReceiverSample>(
    'the test delivery',
    async () => {
      const sample = await receiverGet<ReceiverSample | null>('/sample/sample');
      return sample ? { done: sample } : { state: 'not received' };
    },
    { timeoutMs: 30_000 },
  );
  await api.remove(sampleHook);
  const baselines: BaselineRun[] = [];
  const baseline = (sample: ReceiverSample) =>
    runBaseline({
      url: `${receiver!.url}/baseline`,
      sample,
      count: settings.deliveries,
      concurrency: settings.concurrency,
      timeoutMs: phaseMs,
    });
  baselines.push(await baseline(testSample));
  log(`baseline run 1: ${(baselines[0]!.count / baselines[0]!.seconds).toFixed(0)} POSTs/s`);

  const transfers = Math.ceil(settings.deliveries / settings.hooks);
  const stormUs = monotonicUs();
  const workload = await generateTransfers(devnetUrl, artifacts, {
    transfers,
    recipients: Math.max(2, Math.min(perTransaction, transfers)),
    perTransaction,
  });
  const expected = workload.transfers * settings.hooks;
  log(
    `${workload.transfers} BenchToken transfers in ${workload.transactions} transactions mined in ${(workload.ms / 1000).toFixed(1)} s; ` +
      `waiting for ${expected} queued deliveries`,
  );
  await waitFor<number>('queueing the deliveries while paused', async () => {
    const byStatus = await database!.deliveries(hooks);
    const pending = byStatus.pending ?? 0;
    if (pending > expected) throw new Error(`${pending} deliveries queued, more than the ${expected} expected`);
    return pending === expected ? { done: pending } : { state: `${pending} of ${expected} queued` };
  });
  const queueS = (monotonicUs() - stormUs) / 1e6;
  log(`${expected} deliveries queued ${queueS.toFixed(1)} s after the storm began; resuming`);
  await sleep(1_000);

  const cpuFrom = readTreeCpu(server.pid, serviceLabel);
  const receiverCpuFrom = readTreeCpu(receiver.pid, 'receiver');
  // An outside Postgres on this machine: its postmaster and backends, labelled like the embedded one's.
  const databaseCpuFrom = settings.databasePid ? readTreeCpu(settings.databasePid, 'postgres') : undefined;
  const resumedUs = monotonicUs();
  const resumedWallMs = wallMs();
  await Promise.all(hooks.map((id) => api.setStatus(id, 'active')));
  const received = await waitFor<ReceiverStats>('delivering after the resume', async () => {
    const stats = await receiverStats('throughput');
    return stats.count >= expected ? { done: stats } : { state: `${stats.count} of ${expected} received` };
  });
  const byStatus = await waitFor<Record<string, number>>('logging every delivery as succeeded', async () => {
    const counts = await database!.deliveries(hooks);
    return (counts.succeeded ?? 0) + (counts.failed ?? 0) >= expected
      ? { done: counts }
      : { state: `${counts.succeeded ?? 0} of ${expected} succeeded` };
  });
  const recordedUs = monotonicUs();
  const cpu = cpuBetween(cpuFrom, readTreeCpu(server.pid, serviceLabel));
  if (databaseCpuFrom && settings.databasePid) {
    for (const [label, ms] of cpuBetween(databaseCpuFrom, readTreeCpu(settings.databasePid, 'postgres'))) {
      cpu.set(label, (cpu.get(label) ?? 0) + ms);
    }
  }
  // The receiver runs under tsx: its esbuild helper is counted with it.
  const receiverCpu = [...cpuBetween(receiverCpuFrom, readTreeCpu(receiver.pid, 'receiver')).values()];
  cpu.set(
    'receiver (node)',
    receiverCpu.reduce((sum, ms) => sum + ms, 0),
  );
  log(`${received.count} received ${((received.lastUs - resumedUs) / 1e6).toFixed(2)} s after the resume`);
  const attempts = await database.attempts(hooks);
  const batches = await database.batches(hooks);
  // The real body for the second baseline run.
  const realSample = await receiverGet<ReceiverSample | null>('/sample/throughput');
  baselines.push(await baseline(realSample ?? testSample));
  log(`baseline run 2: ${(baselines[1]!.count / baselines[1]!.seconds).toFixed(0)} POSTs/s`);

  const throughput = formatThroughputReport({
    hooks: settings.hooks,
    deliveries: expected,
    transfers: workload.transfers,
    transactions: workload.transactions,
    queueS,
    concurrency: settings.concurrency,
    baselines,
    receivedS: (received.lastUs - resumedUs) / 1e6,
    recordedS: (recordedUs - resumedUs) / 1e6,
    steadyS: (received.lastUs - received.firstUs) / 1e6,
    received: received.count,
    duplicates: received.duplicates,
    deliveriesByStatus: byStatus,
    attempts,
    batches,
    resumedWallMs,
    cpu,
  });

  console.log('');
  console.log(latency.text);
  console.log('');
  console.log(throughput.text);
  console.log(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  if (!latency.met || !throughput.met) process.exitCode = 1;
  if (profileDir) {
    // The profile is written when the process exits.
    await database.close();
    database = undefined;
    await server.stop();
    printProfile(profileDir, { fromUs: resumedUs, toUs: recordedUs }, log, 'the deliveries after the resume');
  }
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanup();
  disarm();
}
