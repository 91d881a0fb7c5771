import autocannon from 'autocannon';
import { createLatencyRecorder } from './percentiles.ts';

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  /** The same body for every request, or a new one made for each (e.g. a unique address). */
  body: string | (() => string);
}

/** One body of the target's (the first, for a target that makes a new one per request). */
export function bodyOf(target: LoadTarget): string {
  return typeof target.body === 'string' ? target.body : target.body();
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
  const { body } = target;
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    ...(typeof body === 'string'
      ? { body }
      : { requests: [{ method: 'POST', setupRequest: (request: Record<string, unknown>) => ({ ...request, body: body() }) }] }),
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
