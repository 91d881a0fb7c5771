// After a quiet spell: the first requests that need the database once the service has had no traffic
// for a while, against the same requests a second later (the baseline, in the same run). Blockyard as
// `npm start` runs it (bench/support/blockyard-service.ts); a key of an enterprise account. Each round:
// no requests for BENCH_QUIET_S (15) seconds, then 4 `GET /v1/transfers/ethereum/{address}` at once
// (the per-account cap on data queries running at once is 4), a 1.1 s pause, and the same 4 again.
// A pool that closes idle connections (pg's default: after 10 s) pays for new sessions in the first burst.
// Run: npm run bench:after-quiet   (BENCH_QUIET_S, BENCH_QUIET_ROUNDS (6))
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchKey } from './support/admin.ts';
import { type BlockyardService, startBlockyardService } from './support/blockyard-service.ts';
import { createLatencyRecorder, type LatencyRecorder } from './support/percentiles.ts';
import { describeMachine, describeSource, guardRun } from './support/run-guard.ts';
import { wholeNumber } from './support/settings.ts';

const quietS = wholeNumber(process.env, 'BENCH_QUIET_S', 15, 11, 120);
const rounds = wholeNumber(process.env, 'BENCH_QUIET_ROUNDS', 6, 2, 20);
const burst = 4;
const requestTimeoutMs = 10_000;
/** anvil's account #1: the query reads the index for it whether or not it has transfers yet. */
const address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const deadlineMs = 120_000 + rounds * (quietS + 5) * 1000;

const startedAt = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:after-quiet ${((Date.now() - startedAt) / 1000).toFixed(0)} s] ${line}\n`);
const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-after-quiet-'));
let service: BlockyardService | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await service?.server.stop();
    rmSync(workDir, { recursive: true, force: true });
  },
});

async function timedBurst(url: string, key: string, into: LatencyRecorder, medians: number[]): Promise<void> {
  const times = await Promise.all(
    Array.from({ length: burst }, async () => {
      const from = performance.now();
      const response = await fetch(url, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(requestTimeoutMs) });
      await response.text();
      if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
      return performance.now() - from;
    }),
  );
  for (const ms of times) into.record(ms);
  times.sort((a, b) => a - b);
  medians.push((times[burst / 2 - 1]! + times[burst / 2]!) / 2);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  console.log(describeMachine());
  console.log(describeSource(new URL('..', import.meta.url)));
  service = await startBlockyardService({ workDir });
  const key = await createBenchKey(service.server.url, service.adminToken);
  const url = `${service.server.url}/v1/transfers/ethereum/${address}?network=devnet&limit=10`;
  log(`blockyard at ${service.server.url}; ${rounds} rounds of ${quietS} s without requests`);
  const throwaway = createLatencyRecorder();
  await timedBurst(url, key, throwaway, []);

  const afterQuiet = createLatencyRecorder();
  const warm = createLatencyRecorder();
  const afterQuietMedians: number[] = [];
  const warmMedians: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    await pause(quietS * 1000);
    await timedBurst(url, key, afterQuiet, afterQuietMedians);
    await pause(1_100);
    await timedBurst(url, key, warm, warmMedians);
    log(
      `round ${round}: ${afterQuietMedians.at(-1)!.toFixed(1)} ms after the quiet spell, ${warmMedians.at(-1)!.toFixed(1)} ms a second later`,
    );
  }

  const row = (name: string, recorder: LatencyRecorder, medians: number[]) =>
    `| ${name} | ${recorder.count} | ${recorder.percentile(50).toFixed(1)} | ${recorder.percentile(100).toFixed(1)} | ${(recorder.percentile(50) / warm.percentile(50)).toFixed(2)} | ${medians.map((ms) => ms.toFixed(1)).join(', ')} |`;
  console.log(
    `settings: ${rounds} rounds; each ${quietS} s without requests, then ${burst} GET /v1/transfers at once, 1.1 s, ${burst} again`,
  );
  console.log("| requests | n | p50 ms | max ms | p50 x a second later | each round's median ms |");
  console.log('|---|---:|---:|---:|---:|---|');
  console.log(row(`first ${burst} after ${quietS} s without requests`, afterQuiet, afterQuietMedians));
  console.log(row(`the same ${burst} a second later (baseline)`, warm, warmMedians));
  disarm();
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
