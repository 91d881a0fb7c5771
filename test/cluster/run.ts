import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cluster, ensureBuild, lbUrl, startCluster } from './cluster.ts';
import { measureRecovery } from './convergence.ts';
import { faults } from './faults.ts';
import { chainUrl, stopPostgres } from './infrastructure.ts';
import type { Verdict } from './load/contract.ts';
import { spawnLoad } from './load-process.ts';
import { adminToken, apiPort, bundlerKey, encryptionKey } from './nodes.ts';
import { brokenInvariants, type FaultResult, formatReport } from './report.ts';
import { missingRequirements } from './requirements.ts';
import { secretsInLogs } from './secrets-in-logs.ts';
import { killAllStarted, killAllStartedNow, sleep, stopGently } from './shell.ts';
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
const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`[cluster ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

let cluster: Cluster | undefined;
let runDir: string | undefined;

async function runFaults(current: Cluster): Promise<{ results: FaultResult[]; verdict: Verdict | undefined }> {
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
  for (const fault of faults) {
    log(`fault: ${fault.name} (${fault.description})`);
    load.phase(fault.name);
    let failoverS: number | undefined;
    try {
      failoverS = (await fault.inject(current))?.failoverS;
    } catch (error) {
      log(`  could not apply it: ${(error as Error).message}`);
      results.push({
        name: fault.name,
        recoverS: undefined,
        failoverS: undefined,
        lastState: '',
        error: (error as Error).message,
      });
      continue;
    }
    load.phase(`${fault.name} / recovery`);
    const recovery = await measureRecovery(current);
    log(
      `  recovered in ${recovery.seconds?.toFixed(1) ?? 'never'} s${failoverS === undefined ? '' : `, lease failover ${failoverS.toFixed(1)} s`} (${recovery.lastState})`,
    );
    results.push({ name: fault.name, recoverS: recovery.seconds, failoverS, lastState: recovery.lastState });
  }
  const rest = loadPlanS * 1000 - (Date.now() - loadStartedAt);
  if (rest > 0) {
    log(`after the faults: the load runs ${(rest / 1000).toFixed(0)} s more (its plan is ${loadPlanS} s)`);
    load.phase(afterPhase);
    await sleep(rest);
  }
  load.phase('drain');
  const drained = await load.drain(60_000);
  log(`drained in ${drained.seconds.toFixed(1)} s, converged: ${drained.converged}`);
  const verdict = await load.verdict();
  await load.stop();
  return { results, verdict };
}

async function cleanup(): Promise<void> {
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
  const { results, verdict } = await runFaults(cluster);
  const notes = cluster.notes;
  const report = formatReport(results, verdict, { before: baselinePhase, after: afterPhase });
  process.stdout.write(`\n${report}\n`);
  for (const note of notes) process.stdout.write(`note: ${note}\n`);
  if (process.env.CLUSTER_REPORT)
    writeFileSync(process.env.CLUSTER_REPORT, `${report}${notes.map((note) => `\nNote: ${note}\n`).join('')}`);
  const broken = [
    ...new Set([...brokenInvariants(results, verdict), ...secretsInLogs(runDir, [adminToken, encryptionKey, bundlerKey])]),
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
