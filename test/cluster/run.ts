import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cluster, ensureBuild, lbUrl, startCluster } from './cluster.ts';
import { measureRecovery } from './convergence.ts';
import { alertResult, type FaultAlertResult, waitForAlertCycle } from './fault-alerts.ts';
import { type Fault, faults } from './faults.ts';
import { chainUrl, stopPostgres } from './infrastructure.ts';
import type { Verdict } from './load/contract.ts';
import { spawnLoad } from './load-process.ts';
import { emptyDashboardPanels, type Monitoring, startMonitoring } from './monitoring.ts';
import { adminToken, apiPort, bundlerKey, encryptionKey } from './nodes.ts';
import { brokenInvariants, type FaultResult, formatReport } from './report.ts';
import { missingRequirements } from './requirements.ts';
import { rollTimes } from './rolling-upgrade.ts';
import { secretsInLogs } from './secrets-in-logs.ts';
import { killAllStarted, killAllStartedNow, sleep, stopGently } from './shell.ts';
import { sponsorKey } from './sponsorship.ts';
import { createTopology, hosts, removeTopology } from './topology.ts';

/**
 * `npm run test:cluster`: Blockyard on nine network namespaces (db, cache, chain, lb, api1/2,
 * work1/2, rx) under one fault after another while the load runs; prints the table and exits 1 when
 * an invariant broke. Skipped (exit 0) without root or the Debian packages it needs.
 */
const baselinePhase = 'steady';
const baselineS = 15;
const afterPhase = 'after faults';
/** The load's plan (100 UserOperations spread over 5 minutes) runs to its end before the drain. */
const loadPlanS = 305;
/** After a fault's recovery, how long its alert may take to fire and clear before the next fault starts. */
const alertWaitMs = 30_000;
/** How long the dashboard's queries may take to all return series (asked while the load runs on). */
const panelsWaitMs = 30_000;
const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`[cluster ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

let cluster: Cluster | undefined;
let monitoring: Monitoring | undefined;
let runDir: string | undefined;

/** The step whose end also ends a fault's alert span (a killed worker's alert clears with its restart). */
const alertEndsWith = (fault: Fault) => ('clearsWith' in fault.alert && fault.alert.clearsWith) || fault.name;

/** One fault applied, its recovery measured; its alert judged later (test/cluster/fault-alerts.ts). */
async function applyFault(current: Cluster, fault: Fault): Promise<Omit<FaultResult, 'alert'>> {
  const load = current.load;
  log(`fault: ${fault.name} (${fault.description})`);
  load?.phase(fault.name);
  let failoverS: number | undefined;
  try {
    failoverS = (await fault.inject(current))?.failoverS;
  } catch (error) {
    log(`  could not apply it: ${(error as Error).message}`);
    return { name: fault.name, recoverS: undefined, failoverS: undefined, lastState: '', error: (error as Error).message };
  }
  load?.phase(`${fault.name} / recovery`);
  const recovery = await measureRecovery(current);
  log(
    `  recovered in ${recovery.seconds?.toFixed(1) ?? 'never'} s${failoverS === undefined ? '' : `, lease failover ${failoverS.toFixed(1)} s`} (${recovery.lastState})`,
  );
  return { name: fault.name, recoverS: recovery.seconds, failoverS, lastState: recovery.lastState };
}

interface RunOutcome {
  results: FaultResult[];
  verdict: Verdict | undefined;
  emptyPanels: string[];
}

async function runFaults(current: Cluster, watching: Monitoring): Promise<RunOutcome> {
  const load = spawnLoad(current.runDir);
  current.load = load;
  await load.start({
    lbUrl,
    apiUrls: [hosts.api1, hosts.api2].map((host) => `http://${host.address}:${apiPort}`),
    chainRpcUrl: chainUrl,
    chain: 'ethereum',
    network: 'devnet',
    adminToken,
    bindHost: hosts.rx.address,
  });
  const loadStartedAt = Date.now();
  log('load started');
  load.phase(baselinePhase);
  await sleep(baselineS * 1000);
  const results: FaultResult[] = [];
  const open: { index: number; fault: Fault; from: number; result: Omit<FaultResult, 'alert'> }[] = [];
  const judge = async (entry: (typeof open)[number]) => {
    const alert = await alertResult(watching.alerts, entry.fault.alert, { from: entry.from, to: Date.now() }).catch(
      (error: Error): FaultAlertResult => ({ expected: `(Prometheus not asked: ${error.message})`, required: true, seen: [] }),
    );
    results[entry.index] = { ...entry.result, alert };
    const seen = `; fired meanwhile: ${alert.seen.join(', ') || 'none'}`;
    if (alert.required)
      log(
        `  alert ${alert.expected}: fired at ${alert.firedS?.toFixed(1) ?? '-'} s, cleared at ${alert.clearedS?.toFixed(1) ?? '-'} s${seen}`,
      );
    else log(`  alert: none expected${seen}`);
  };
  for (const [index, fault] of faults.entries()) {
    const from = Date.now();
    open.push({ index, fault, from, result: await applyFault(current, fault) });
    // The alerts whose span ends with this step: waited for (fired, then cleared), then judged.
    for (const entry of open.filter((candidate) => alertEndsWith(candidate.fault) === fault.name)) {
      await waitForAlertCycle(watching.alerts, entry.fault.alert, entry.from, alertWaitMs);
      await judge(entry);
      open.splice(open.indexOf(entry), 1);
    }
  }
  for (const entry of open) await judge(entry);
  if (rollTimes.length > 0)
    log(`rolling upgrade: ${rollTimes.map((roll) => `${roll.node} out of rotation ${roll.outS.toFixed(1)} s`).join(', ')}`);
  // The dashboard's queries are asked while the load runs on (they read 5-minute rates).
  const panels = emptyDashboardPanels(watching, panelsWaitMs).catch((error: Error) => [`(asking failed: ${error.message})`]);
  const rest = loadPlanS * 1000 - (Date.now() - loadStartedAt);
  if (rest > 0) {
    log(`after the faults: the load runs ${(rest / 1000).toFixed(0)} s more (its plan is ${loadPlanS} s)`);
    load.phase(afterPhase);
    await sleep(rest);
  }
  const emptyPanels = await panels;
  log(`dashboard: ${dashboardLine(emptyPanels)}`);
  load.phase('drain');
  const drained = await load.drain(60_000);
  log(`drained in ${drained.seconds.toFixed(1)} s, converged: ${drained.converged}`);
  const verdict = await load.verdict();
  await load.stop();
  return { results, verdict, emptyPanels };
}

function dashboardLine(emptyPanels: readonly string[]): string {
  return emptyPanels.length === 0
    ? 'every panel query of deploy/grafana/blockyard.json returned series'
    : `${emptyPanels.length} panel queries without series: ${emptyPanels.join('; ')}`;
}

async function cleanup(): Promise<void> {
  await monitoring?.stop().catch(() => undefined);
  monitoring = undefined;
  const current = cluster;
  cluster = undefined;
  if (current) {
    await current.load?.stop().catch(() => undefined);
    await Promise.all(
      [
        ...Object.values(current.nodes).map((node) => node.process),
        current.haproxy,
        current.delayProxy.process,
        current.redis,
        current.anvil,
      ].map((processHandle) => stopGently(processHandle, 5_000)),
    );
    stopPostgres(current.postgres, 'immediate');
  }
  await killAllStarted();
  removeTopology();
}

function logFiles(): string {
  if (!runDir) return '';
  return readdirSync(runDir)
    .filter((name) => name.endsWith('.log'))
    .map((name) => `  ${join(runDir as string, name)}`)
    .join('\n');
}

async function main(): Promise<number> {
  const missing = missingRequirements();
  if (missing) {
    process.stdout.write(`test:cluster skipped: ${missing}\n`);
    // CI sets it: there a skip would hide that the cluster never ran.
    return process.env.BK_CLUSTER_REQUIRED === '1' ? 1 : 0;
  }
  ensureBuild(log);
  await cleanup();
  runDir = mkdtempSync(join(tmpdir(), 'bk-cluster-'));
  createTopology();
  log(`namespaces up; logs in ${runDir}`);
  cluster = await startCluster(runDir, log);
  for (const note of cluster.notes) log(`note: ${note}`);
  monitoring = await startMonitoring(cluster);
  log('prometheus scraping every node, the scaled rules loaded');
  const { results, verdict, emptyPanels } = await runFaults(cluster, monitoring);
  const notes = cluster.notes;
  const report = `${formatReport(results, verdict, { before: baselinePhase, after: afterPhase }, rollTimes)}\nDashboard: ${dashboardLine(emptyPanels)}.\n`;
  process.stdout.write(`\n${report}\n`);
  for (const note of notes) process.stdout.write(`note: ${note}\n`);
  if (process.env.CLUSTER_REPORT)
    writeFileSync(process.env.CLUSTER_REPORT, `${report}${notes.map((note) => `\nNote: ${note}\n`).join('')}`);
  const broken = [
    ...new Set([
      ...brokenInvariants(results, verdict),
      ...emptyPanels.map((panel) => `dashboard panel without series: ${panel}`),
      ...secretsInLogs(runDir, [adminToken, encryptionKey, bundlerKey, sponsorKey]),
    ]),
  ];
  if (broken.length > 0) {
    process.stdout.write(
      `\nBROKEN (${broken.length}):\n${broken.map((line) => `  - ${line}`).join('\n')}\nlogs:\n${logFiles()}\n`,
    );
    return 1;
  }
  process.stdout.write(`\nall invariants held (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return 0;
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => killAllStartedNow());

main()
  .then(async (code) => {
    const keepLogs = code !== 0;
    await cleanup();
    if (runDir && !keepLogs && !process.env.CLUSTER_KEEP_LOGS) rmSync(runDir, { recursive: true, force: true });
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    process.stdout.write(`\ntest:cluster failed: ${(error as Error).stack ?? String(error)}\nlogs:\n${logFiles()}\n`);
    await cleanup().catch(() => undefined);
    process.exit(1);
  });
