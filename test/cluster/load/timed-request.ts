import type { Outcome } from './phase-stats.ts';

/** Every request of the load is bounded by this (the "an answer within 5 s"). */
export const answerDeadlineMs = 5_000;

export interface TimedAnswer {
  outcome: Outcome;
  status?: number;
  headers?: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  body?: any;
}

/**
 * One HTTP request with the 5 s deadline: its outcome (status, time, whether the answer breaks the
 * error contract) and the parsed body. Never throws.
 */
export async function timedRequest(url: string, init: RequestInit = {}): Promise<TimedAnswer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(answerDeadlineMs) });
    const text = await response.text();
    const ms = performance.now() - started;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const bad = breaksErrorContract(response.status, response.headers, body);
    return { outcome: { status: response.status, ms, bad }, status: response.status, headers: response.headers, body };
  } catch {
    return { outcome: { status: undefined, ms: performance.now() - started } };
  }
}

/** A 500; any 5xx not in the spec's shape {error:{code,message,status}}; a 503 without Retry-After. */
export function breaksErrorContract(status: number, headers: Headers, body: unknown): boolean {
  if (status < 500) return false;
  if (status === 500) return true;
  if (!inErrorShape(body, status)) return true;
  return status === 503 && !headers.get('retry-after');
}

function inErrorShape(body: unknown, status: number): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown; status?: unknown } } | undefined)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string' &&
    error.status === status
  );
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch for viem's http transport that records each request in the current phase (the bundler's
 * JSON-RPC through the load balancer) and bounds it by the 5 s deadline.
 */
export function recordingFetch(record: (outcome: Outcome) => void) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const started = performance.now();
    try {
      const response = await fetch(input, { ...init, signal: AbortSignal.timeout(answerDeadlineMs) });
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const bad = breaksErrorContract(response.status, response.headers, body);
      record({ status: response.status, ms: performance.now() - started, bad });
      return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      record({ status: undefined, ms: performance.now() - started });
      throw error;
    }
  };
}
