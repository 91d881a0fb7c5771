// `npm run soak`: the service as `npm start` runs it (the build, default settings, the embedded
// Postgres and devnet) under a steady mixed load for SOAK_MINUTES (default 20): JSON-RPC hits and
// misses, 200 WebSocket newHeads subscribers, webhook deliveries, token and NFT reads, bundler ops,
// dashboard page loads. Every 10 s it records the process's RSS, heap, open handles and sockets,
// event-loop delay p99, and each route group's p99. Exit 1 (saying why) when handles grow by more than
// 10% between minute 3 (minute 2 for runs under 6 minutes) and the last minute, RSS or heap just after
// a full collection (forced through the inspector, bench/support/full-collection.ts) grows by more than
// 10% between the same minutes, or a route group's p99 over the second half is more
// than twice (and 20 ms over) its p99 from minute 3 to the middle. Writes docs/soak.svg; with
// SOAK_RECORD=1 it also appends the table to docs/benchmarks.md.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchKey } from './support/admin.ts';
import { type BlockyardService, startBlockyardService } from './support/blockyard-service.ts';
import { signUpBenchUser } from './support/dashboard-session.ts';
import { fullCollector } from './support/full-collection.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { type SoakLoad, startSoakLoad } from './support/soak-load.ts';
import { type CollectedMemory, formatTable, middleMinute, minuteRows, renderChart, verdict } from './support/soak-report.ts';
import { memoryNow, sampleEveryMs, startProcessSampler } from './support/soak-sampler.ts';

const minutes = Number(process.env.SOAK_MINUTES ?? 20);
if (!Number.isInteger(minutes) || minutes < 3 || minutes > 24 * 60) {
  process.stderr.write('SOAK_MINUTES must be a whole number of minutes, 3 or more\n');
  process.exit(2);
}
const baselineMinute = minutes < 6 ? 2 : 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-soak-'));
let blockyard: BlockyardService | undefined;
let load: SoakLoad | undefined;
const { cleanup, disarm } = guardRun({
  // The run, the start (build included) and the stop, with room to spare.
  deadlineMs: (minutes + 8) * 60_000,
  log,
  async stop() {
    await load?.stop();
    await blockyard?.server.stop();
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  const machine = describeMachine();
  console.log(machine);
  blockyard = await startBlockyardService({ workDir });
  const url = blockyard.server.url;
  if (!blockyard.devnetUrl) throw new Error('the service printed no embedded devnet URL');
  log(`blockyard at ${url} (pid ${blockyard.server.pid}), devnet at ${blockyard.devnetUrl}; ${minutes} minutes`);
  const key = await createBenchKey(url, blockyard.adminToken);
  const user = await signUpBenchUser(url, join(workDir, 'blockyard'));
  load = await startSoakLoad(
    { url, key, devnetUrl: blockyard.devnetUrl, cookie: `${user.cookie.name}=${user.cookie.value}` },
    log,
  );
  const startedAt = performance.now();
  const metricsUrl = `${url}/metrics`;
  const sampler = startProcessSampler({ pid: blockyard.server.pid, metricsUrl, startedAt });
  const collector = fullCollector({ pid: blockyard.server.pid, logFile: blockyard.logFile });
  const collected: CollectedMemory[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + minute * 60_000 - performance.now())));
    const last = sampler.samples.at(-1);
    log(
      `minute ${minute}/${minutes}: RSS ${last?.rssMiB.toFixed(1)} MiB, fds ${last?.fds}, ${load.samples.length} requests, ` +
        `${load.counts.deliveries} deliveries, ${load.counts.ops} ops, ${load.counts.wsMessages} ws messages`,
    );
    // The first collection opens the inspector (a listening socket and its threads): done in minute 1
    // so that the handle count's baseline already holds them.
    if (minute === 1) await collector.collect();
    if ((minute === baselineMinute || minute === minutes) && (await collector.collect())) {
      collected.push({ minute, ...(await memoryNow(blockyard.server.pid, metricsUrl)) });
      const held = collected.at(-1)!;
      log(`after a full collection: RSS ${held.rssMiB.toFixed(1)} MiB, heap ${held.heapMiB.toFixed(1)} MiB`);
    }
  }
  if (collector.unavailable) log(`no forced collection (${collector.unavailable}): RSS judged by its floor`);
  sampler.stop();
  const measured = load;
  load = undefined;
  await measured.stop();

  const rows = minuteRows(sampler.samples, measured.samples, minutes);
  const table = formatTable(rows);
  const [baseline, end] = collected;
  const problems = verdict(rows, baselineMinute, measured.samples, baseline && end ? { baseline, end } : undefined);
  const chart = renderChart(sampler.samples, measured.samples, sampleEveryMs / 1000);
  writeFileSync(join(root, 'docs', 'soak.svg'), chart);
  const counts = measured.counts;
  const summary = [
    `${minutes} minutes: ${measured.samples.length} timed requests, ${counts.transfers} transfers -> ${counts.deliveries} webhook deliveries, ` +
      `${counts.ops} UserOperations, ${counts.wsMessages} newHeads messages to 200 subscribers (${counts.wsClosed} closed)`,
    `baseline minute ${baselineMinute}; latency: minutes ${baselineMinute}-${middleMinute(minutes, baselineMinute)} against the rest`,
    ...collected.map(
      (held) =>
        `after a full collection at minute ${held.minute}: RSS ${held.rssMiB.toFixed(1)} MiB, heap ${held.heapMiB.toFixed(1)} MiB`,
    ),
  ];
  console.log(`\n${table}\n`);
  for (const line of summary) console.log(line);
  if (measured.failures.size > 0) {
    console.log('failures (first kinds):');
    for (const [reason, count] of [...measured.failures].slice(0, 10)) console.log(`  ${count} x ${reason}`);
  }
  console.log(problems.length === 0 ? 'PASS: flat memory, handles and latency' : `FAIL:\n  ${problems.join('\n  ')}`);
  console.log(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  console.log('chart: docs/soak.svg');
  if (process.env.SOAK_RECORD === '1') {
    appendFileSync(
      join(root, 'docs', 'benchmarks.md'),
      [
        '',
        `### Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: \`SOAK_MINUTES=${minutes} npm run soak\``,
        '',
        machine,
        '',
        ...summary.map((line) => `${line}.`),
        '',
        table,
        '',
        problems.length === 0 ? 'Result: pass.' : `Result: fail: ${problems.join('; ')}.`,
        '',
        '![RSS and p99 latency over the soak](soak.svg)',
        '',
      ].join('\n'),
    );
    console.log('recorded in docs/benchmarks.md');
  }
  disarm();
  await cleanup();
  process.exit(problems.length === 0 ? 0 : 1);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  if (blockyard) log(`service log: ${blockyard.logFile}`);
  disarm();
  await cleanup();
  process.exit(1);
}
