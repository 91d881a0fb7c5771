// Every 10 s of the soak: the service process's RSS and open file descriptors (sockets among them)
// from /proc, its heap and event-loop delay p99 from its own /metrics (prom-client's process metrics).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessSample {
  /** Seconds since the load started. */
  atS: number;
  rssMiB: number;
  heapMiB: number;
  /** Open file descriptors (handles), sockets included. */
  fds: number;
  sockets: number;
  loopP99Ms: number;
}

export const sampleEveryMs = 10_000;

export function startProcessSampler(options: { pid: number; metricsUrl: string; startedAt: number }): {
  samples: ProcessSample[];
  stop(): void;
} {
  const samples: ProcessSample[] = [];
  const take = async () => {
    const metrics = await readMetrics(options.metricsUrl);
    const { fds, sockets } = countFds(options.pid);
    samples.push({
      atS: (performance.now() - options.startedAt) / 1000,
      rssMiB: readRssMiB(options.pid),
      heapMiB: metricValue(metrics, 'blockyard_nodejs_heap_size_used_bytes') / 2 ** 20,
      fds,
      sockets,
      loopP99Ms: metricValue(metrics, 'blockyard_nodejs_eventloop_lag_p99_seconds') * 1000,
    });
  };
  const timer = setInterval(() => void take(), sampleEveryMs);
  return {
    samples,
    stop: () => clearInterval(timer),
  };
}

/** The process's RSS and used heap now (after a full collection, what it holds). */
export async function memoryNow(pid: number, metricsUrl: string): Promise<{ rssMiB: number; heapMiB: number }> {
  const metrics = await readMetrics(metricsUrl);
  return { rssMiB: readRssMiB(pid), heapMiB: metricValue(metrics, 'blockyard_nodejs_heap_size_used_bytes') / 2 ** 20 };
}

const readMetrics = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5_000) })
    .then((response) => response.text())
    .catch(() => '');

function readRssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function countFds(pid: number): { fds: number; sockets: number } {
  try {
    const entries = readdirSync(`/proc/${pid}/fd`);
    let sockets = 0;
    for (const entry of entries) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${entry}`).startsWith('socket:')) sockets++;
      } catch {
        // Closed between the listing and the read.
      }
    }
    return { fds: entries.length, sockets };
  } catch {
    return { fds: Number.NaN, sockets: Number.NaN };
  }
}

/** The value of an unlabelled metric in Prometheus text (NaN when absent). */
function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : Number.NaN;
}
