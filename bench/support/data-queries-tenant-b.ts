// Tenant B of bench/data-queries.ts phase B: loops sending the worst shapes until told to stop. In a
// worker thread by default, as another client would be: in the bench's own thread, the parsing of its
// 0.5-1.5 MB answers held the event loop that times tenant A's reads, and that wait was counted as
// Blockyard's. `bench thread` keeps the old placement, to compare.
import { Worker } from 'node:worker_threads';
import { type HttpRequest, send } from './data-queries-client.ts';
import { type AnswerTally, countAnswer, createTally } from './data-queries-tally.ts';
import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';

export type TenantBPlace = 'worker' | 'bench thread';

export interface TenantBSettings {
  /** Tenant B's requests, sent in turn by each of `concurrency` loops. */
  hostile: HttpRequest[];
  concurrency: number;
  timeoutMs: number;
}

export interface TenantBResult {
  tally: AnswerTally;
  latency: LatencyRecorder;
  ms: number;
}

/** How long one of tenant B's loops waits after a refused answer (429, 400) before its next request. */
export const refusedPauseMs = 100;

/** Tenant B's loops as plain data (what a worker posts back). */
export interface TenantBSamples {
  latencies: number[];
  labels: [string, number][];
  messages: [string, string][];
  outcomes: AnswerTally['outcomes'];
  ms: number;
}

/** The loops themselves, in whichever thread calls this; they end when `signal` aborts. */
export async function runTenantBLoops(settings: TenantBSettings, signal: AbortSignal): Promise<TenantBSamples> {
  const tally = createTally();
  const latencies: number[] = [];
  const started = performance.now();
  const loops = Array.from({ length: settings.concurrency }, async (_, loop) => {
    for (let turn = loop; !signal.aborted; turn++) {
      const answer = await send(settings.hostile[turn % settings.hostile.length]!, settings.timeoutMs, signal);
      if (signal.aborted) break;
      latencies.push(answer.ms);
      countAnswer(tally, answer);
      // A refused loop retries soon, but does not spin: its load is the queries, not a flood of refusals.
      if (answer.outcome === 'refused') await new Promise((resolve) => setTimeout(resolve, refusedPauseMs));
    }
  });
  await Promise.all(loops);
  return {
    latencies,
    labels: [...tally.labels],
    messages: [...tally.messages],
    outcomes: tally.outcomes,
    ms: performance.now() - started,
  };
}

/** tsx's loader hooks belong to the thread that registered them: the worker registers its own, then loads its module. */
const workerBootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(
  new URL('./data-queries-tenant-b-worker.ts', import.meta.url).href,
)}); })`;

/** Starts tenant B's loops; `stop()` ends them and gives what they saw. */
export async function startTenantB(settings: TenantBSettings, place: TenantBPlace): Promise<{ stop(): Promise<TenantBResult> }> {
  if (place === 'bench thread') {
    const abort = new AbortController();
    const running = runTenantBLoops(settings, abort.signal);
    return {
      async stop() {
        abort.abort();
        return fromSamples(await running);
      },
    };
  }
  const worker = new Worker(workerBootstrap, { eval: true, workerData: settings });
  const finished = new Promise<TenantBSamples>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`tenant B's worker exited (${code}) before it reported`)));
  });
  await new Promise((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const samples = await finished;
      await worker.terminate();
      return fromSamples(samples);
    },
  };
}

function fromSamples(samples: TenantBSamples): TenantBResult {
  const latency = createLatencyRecorder();
  for (const ms of samples.latencies) latency.record(ms);
  const tally: AnswerTally = { labels: new Map(samples.labels), messages: new Map(samples.messages), outcomes: samples.outcomes };
  return { tally, latency, ms: samples.ms };
}
