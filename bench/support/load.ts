import autocannon from 'autocannon';
import { createLatencyRecorder } from './percentiles.ts';

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  connections: number;
  durationS: number;
  rps: number;
  total: number;
  /** Milliseconds, from each response's own timing (autocannon's histogram rounds down to whole ms). */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Slack on top of the run's duration before the run is stopped from outside. */
const hardStopSlackMs = 15_000;

/** One autocannon run of `durationS` seconds at `connections` connections; stopped if it overruns. */
export async function runLoad(target: LoadTarget, connections: number, durationS: number): Promise<LoadResult> {
  const latencies = createLatencyRecorder();
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: durationS,
    timeout: 10,
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
    latencies.record(responseTimeMs);
  });
  const hardStop = setTimeout(() => instance.stop(), durationS * 1000 + hardStopSlackMs);
  try {
    const result = await instance;
    return {
      connections,
      durationS: result.duration,
      rps: result.requests.total / result.duration,
      total: result.requests.total,
      p50: latencies.percentile(50),
      p99: latencies.percentile(99),
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    };
  } finally {
    clearTimeout(hardStop);
  }
}
