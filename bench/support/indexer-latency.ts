// One request after the other on one keep-alive connection for a fixed time, each timed on its own.
import { Client } from 'undici';
import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';

export interface SequentialRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Throws when a 200 answer's body is not what the row measures. */
  check?: (body: string) => void;
}

export interface SequentialResult {
  latencies: LatencyRecorder;
  requests: number;
  seconds: number;
  non2xx: number;
  /** Transport errors, timeouts and failed checks; the first message of them. */
  errors: number;
  firstError?: string;
}

const requestTimeoutMs = 10_000;
/** A target that fails this often is down: no point spinning on it for the rest of the time. */
const maxErrors = 100;

/** Sends `request` back to back for `seconds`; only the answers to requests started in that time count. */
export async function runSequential(request: SequentialRequest, seconds: number): Promise<SequentialResult> {
  const target = new URL(request.url);
  const client = new Client(target.origin, {
    pipelining: 1,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    connectTimeout: requestTimeoutMs,
  });
  const latencies = createLatencyRecorder();
  const result: SequentialResult = { latencies, requests: 0, seconds, non2xx: 0, errors: 0 };
  const started = performance.now();
  const endAt = started + seconds * 1000;
  try {
    while (performance.now() < endAt && result.errors < maxErrors) {
      const sent = performance.now();
      try {
        const answer = await client.request({
          path: `${target.pathname}${target.search}`,
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        const body = await answer.body.text();
        latencies.record(performance.now() - sent);
        result.requests++;
        if (answer.statusCode < 200 || answer.statusCode > 299) {
          result.non2xx++;
          result.firstError ??= `answered ${answer.statusCode}: ${body.slice(0, 200)}`;
        } else {
          request.check?.(body);
        }
      } catch (error) {
        result.errors++;
        result.firstError ??= (error as Error).message;
      }
    }
    result.seconds = (performance.now() - started) / 1000;
    return result;
  } finally {
    await client.close().catch(() => client.destroy());
  }
}
