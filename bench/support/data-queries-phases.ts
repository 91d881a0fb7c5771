// The two measured phases of bench/data-queries.ts. A: every query shape, round-robin with the
// baseline, one at a time. B: one tenant's indexed read, alone and while another tenant runs the
// worst shapes in loops. Every loop ends at its count or its time budget, whichever comes first.
import { startBurner } from './data-queries-burner.ts';
import { type HttpRequest, send } from './data-queries-client.ts';
import type { QueryShape } from './data-queries-shapes.ts';
import { type AnswerTally, countAnswer, createTally } from './data-queries-tally.ts';
import { startTenantB, type TenantBPlace, type TenantBResult } from './data-queries-tenant-b.ts';
import { monotonicUs } from './indexer-backfill.ts';
import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';
import { coresBetween, readTreeCpuMs } from './process-tree-cpu.ts';

export interface ShapeResult {
  shape: QueryShape;
  /** Latency of the accepted answers. */
  accepted: LatencyRecorder;
  /** Latency of every answer, whatever it was. */
  all: LatencyRecorder;
  tally: AnswerTally;
  /** Items of the last accepted answer. */
  items?: number;
}

export interface PhaseASettings {
  key: string;
  warmupRounds: number;
  rounds: number;
  budgetMs: number;
  timeoutMs: number;
  log: (line: string) => void;
}

/** Phase A: `rounds` measured rounds over every shape (after the warm-up), or as many as fit the budget. */
export async function runPhaseA(
  shapes: QueryShape[],
  settings: PhaseASettings,
): Promise<{ results: ShapeResult[]; rounds: number; warmups: number }> {
  const results: ShapeResult[] = shapes.map((shape) => ({
    shape,
    accepted: createLatencyRecorder(),
    all: createLatencyRecorder(),
    tally: createTally(),
  }));
  const started = performance.now();
  // The warm-up takes at most a fifth of the budget: today a round can last a minute.
  const warmupEnd = started + settings.budgetMs / 5;
  const end = started + settings.budgetMs;
  let warmups = 0;
  while (warmups < settings.warmupRounds && performance.now() < warmupEnd) {
    for (const shape of shapes) {
      if (performance.now() > warmupEnd) break;
      await send(shape.request(settings.key), settings.timeoutMs);
    }
    warmups++;
  }
  settings.log(`${warmups} warm-up round(s) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  let rounds = 0;
  const measuring = performance.now();
  // Round-robin: a slow moment of the machine falls on every shape alike instead of on one row.
  while (rounds < settings.rounds && performance.now() < end) {
    const roundStart = performance.now();
    for (const result of results) {
      // Out of time mid-round: the rows before this one have one sample more than the rest.
      if (performance.now() > end) break;
      const answer = await send(result.shape.request(settings.key), settings.timeoutMs);
      result.all.record(answer.ms);
      if (answer.outcome === 'accepted') {
        result.accepted.record(answer.ms);
        result.items = answer.items;
      }
      countAnswer(result.tally, answer);
    }
    rounds++;
    const roundS = (performance.now() - roundStart) / 1000;
    if (rounds % 10 === 0 || roundS > 10) {
      settings.log(
        `round ${rounds} took ${roundS.toFixed(1)} s (${((performance.now() - measuring) / 1000).toFixed(0)} s so far)`,
      );
    }
  }
  return { results, rounds, warmups };
}

export interface PhaseBSettings {
  /** Tenant A's indexed read. */
  read: HttpRequest;
  /** Tenant B's requests, sent in turn by each of `concurrency` loops. */
  hostile: HttpRequest[];
  concurrency: number;
  /** Where tenant B's loops run. */
  tenantB: TenantBPlace;
  samples: number;
  /** The most each of the three read series may take. */
  seriesMs: number;
  timeoutMs: number;
  /** The service's process: its CPU and its children's (Postgres, anvil) are read over the series. */
  servicePid: number;
  log: (line: string) => void;
}

export interface ReadSeries {
  latency: LatencyRecorder;
  tally: AnswerTally;
  ms: number;
}

export interface PhaseBResult {
  alone: ReadSeries;
  loaded: ReadSeries;
  after: ReadSeries;
  hostile: TenantBResult;
  /** The loaded series on the monotonic clock (what a service's CPU profile is timed by). */
  loadedWindowUs: { fromUs: number; toUs: number };
  /** Cores used over the alone and loaded series, by process (the service, postgres, anvil, the benchmark). */
  cores: { alone: Map<string, number>; loaded: Map<string, number> };
  /** A's reads while a plain busy loop keeps one core busy, at niceness 0 and 19: the machine's own share of the slowdown. */
  burned: { niceness: number; series: ReadSeries }[];
}

/** The benchmark process's CPU (ms, every thread: tenant A's client and tenant B's worker). */
function benchCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function readCpu(servicePid: number): Map<string, number> {
  const sums = readTreeCpuMs(servicePid, 'blockyard');
  sums.set('benchmark', benchCpuMs());
  return sums;
}

/** A read series with the cores each process used meanwhile. */
async function measuredSeries(settings: PhaseBSettings): Promise<{ series: ReadSeries; cores: Map<string, number> }> {
  const before = readCpu(settings.servicePid);
  const series = await readSeries(settings);
  return { series, cores: coresBetween(before, readCpu(settings.servicePid), series.ms) };
}

/** Sequential reads until `samples` or the time is up; latency of the accepted ones. */
async function readSeries(settings: PhaseBSettings): Promise<ReadSeries> {
  const latency = createLatencyRecorder();
  const tally = createTally();
  const started = performance.now();
  const end = started + settings.seriesMs;
  while (latency.count + tally.outcomes.refused + tally.outcomes.failed < settings.samples && performance.now() < end) {
    const answer = await send(settings.read, settings.timeoutMs);
    if (answer.outcome === 'accepted') latency.record(answer.ms);
    countAnswer(tally, answer);
  }
  return { latency, tally, ms: performance.now() - started };
}

/** Phase B: A's read alone, then while B's loops run (after a settling pause), then once they are stopped. */
export async function runPhaseB(settings: PhaseBSettings): Promise<PhaseBResult> {
  const { log } = settings;
  // A few reads first, so that the connection and the plan are warm for the first series too.
  for (let i = 0; i < 20; i++) await send(settings.read, settings.timeoutMs);
  const { series: alone, cores: aloneCores } = await measuredSeries(settings);
  log(`alone: ${alone.latency.count} reads in ${(alone.ms / 1000).toFixed(1)} s`);

  const tenantB = await startTenantB(
    { hostile: settings.hostile, concurrency: settings.concurrency, timeoutMs: settings.timeoutMs },
    settings.tenantB,
  );
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const fromUs = monotonicUs();
  const { series: loaded, cores: loadedCores } = await measuredSeries(settings);
  const loadedWindowUs = { fromUs, toUs: monotonicUs() };
  log(`under load: ${loaded.latency.count} reads in ${(loaded.ms / 1000).toFixed(1)} s`);
  const hostile = await tenantB.stop();
  // Queries the stopped loops left running in the database go on until they end: the third series sees that.
  const after = await readSeries(settings);
  log(`after: ${after.latency.count} reads in ${(after.ms / 1000).toFixed(1)} s`);
  const burned: PhaseBResult['burned'] = [];
  for (const niceness of [0, 19]) {
    const burner = await startBurner(niceness, settings.seriesMs + 10_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      burned.push({ niceness, series: await readSeries(settings) });
    } finally {
      await burner.stop();
    }
    log(`with a busy loop at niceness ${niceness}: ${burned.at(-1)!.series.latency.count} reads`);
  }
  return { alone, loaded, after, hostile, loadedWindowUs, cores: { alone: aloneCores, loaded: loadedCores }, burned };
}
