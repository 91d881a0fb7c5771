import { readCpuMs } from './cpu-time.ts';
import { bodyOf, type LoadResult, type LoadTarget, runLoad } from './load.ts';
import { readRssMiB, sampleRss } from './rss.ts';
import type { BenchSettings } from './settings.ts';

export interface Measured {
  name: string;
  many: LoadResult;
  one: LoadResult;
  /** Largest RSS of the server process from before the warm-up to the end of the runs, MiB. */
  maxRssMiB: number;
  /** RSS after the answer check, before any load, MiB. */
  idleRssMiB: number;
  /** CPU time the server process used per request during the many-connection run, microseconds. */
  cpuUsPerRequest: number;
}

export interface MeasureTarget extends LoadTarget {
  name: string;
  /** The process serving the requests (for RSS). */
  pid: number;
  /** Connections of the many-connection run; default the settings' (50). */
  connections?: number;
}

/** Checks one answer, warms up, then loads at N connections and at one connection while sampling RSS. */
export async function measure(target: MeasureTarget, settings: BenchSettings, log: (line: string) => void): Promise<Measured> {
  await checkAnswer(target);
  const idleRssMiB = readRssMiB(target.pid);
  // From before the warm-up, so the max covers every request the process serves.
  const rss = sampleRss(target.pid);
  const connections = target.connections ?? settings.connections;
  try {
    log(`${target.name}: warm-up ${settings.warmupS} s`);
    await runLoad(target, connections, settings.warmupS);
    log(`${target.name}: ${connections} connections for ${settings.durationS} s`);
    const cpuBefore = readCpuMs(target.pid);
    const many = await runLoad(target, connections, settings.durationS);
    const cpuUsPerRequest = ((readCpuMs(target.pid) - cpuBefore) * 1000) / many.total;
    log(`${target.name}: 1 connection for ${settings.latencyDurationS} s`);
    const one = await runLoad(target, 1, settings.latencyDurationS);
    for (const run of [many, one]) {
      if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0) {
        log(
          `WARNING ${target.name} at ${run.connections} connection(s): ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`,
        );
      }
    }
    return { name: target.name, many, one, maxRssMiB: rss.stop(), idleRssMiB, cpuUsPerRequest };
  } finally {
    rss.stop();
  }
}

/** One request before the load: the target must answer 200 with a JSON-RPC result, or the numbers mean nothing. */
async function checkAnswer(target: MeasureTarget): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body: bodyOf(target),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let result: unknown;
  try {
    result = (JSON.parse(text) as { result?: unknown }).result;
  } catch {
    result = undefined;
  }
  if (response.status !== 200 || typeof result !== 'string') {
    throw new Error(`${target.name} answered ${response.status} ${text.slice(0, 200)} instead of a JSON-RPC result`);
  }
}
