import { expect } from 'vitest';

/** What one request of the probe set got, and how fast. */
export interface ProbeResult {
  readonly name: string;
  readonly ms: number;
  /** HTTP status, or 0 when no answer came within the deadline (or the connection failed). */
  readonly status: number;
  readonly retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  readonly body: any;
  readonly failure?: string;
}

export interface ProbeTarget {
  readonly url: string;
  readonly key: string;
  readonly adminToken: string;
  /** A holder address for the token balances read. */
  readonly holder: string;
}

/** An answer must come within this (issue 20): 503 with Retry-After, the JSON-RPC error, or the data. */
export const answerDeadlineMs = 2_000;

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  jsonRpc?: boolean;
}

let missCounter = 0;

/** The set of requests asked during and after an outage: REST reads, JSON-RPC hits and misses, admin, health. */
function probeSet(target: ProbeTarget): Probe[] {
  const key = { 'x-api-key': target.key };
  const rpc = (name: string, method: string, params: unknown[]): Probe => ({
    name,
    method: 'POST',
    path: '/v1/rpc/ethereum/devnet',
    headers: { ...key, 'content-type': 'application/json' },
    body: { jsonrpc: '2.0', id: 1, method, params },
    jsonRpc: true,
  });
  missCounter++;
  const fresh = `0x${(0xdead0000 + missCounter).toString(16).padStart(40, '0')}`;
  return [
    { name: 'healthz', method: 'GET', path: '/healthz', headers: {} },
    { name: 'webhooks list', method: 'GET', path: '/v1/webhooks', headers: key },
    { name: 'token balances', method: 'GET', path: `/v1/tokens/ethereum/balances/${target.holder}?network=devnet`, headers: key },
    rpc('json-rpc hit', 'eth_chainId', []),
    rpc('json-rpc miss', 'eth_getBalance', [fresh, 'latest']),
    { name: 'admin accounts', method: 'GET', path: '/admin/accounts', headers: { authorization: `Bearer ${target.adminToken}` } },
  ];
}

async function ask(target: ProbeTarget, probe: Probe): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const response = await fetch(`${target.url}${probe.path}`, {
      method: probe.method,
      headers: probe.headers,
      body: probe.body === undefined ? undefined : JSON.stringify(probe.body),
      // A little over the deadline: an answer that took longer is reported with its time, not as a hang.
      signal: AbortSignal.timeout(answerDeadlineMs + 3_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return {
      name: probe.name,
      ms: performance.now() - started,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
    };
  } catch (error) {
    return {
      name: probe.name,
      ms: performance.now() - started,
      status: 0,
      retryAfter: null,
      body: undefined,
      failure: (error as Error).message,
    };
  }
}

/** Every probe at once. */
export async function probeAll(target: ProbeTarget): Promise<ProbeResult[]> {
  const probes = probeSet(target);
  return Promise.all(probes.map((probe) => ask(target, probe)));
}

/** Why an answer given during an outage is not acceptable, or undefined when it is. */
export function outageProblem(result: ProbeResult): string | undefined {
  const where = `${result.name}: ${result.status} in ${Math.round(result.ms)} ms ${JSON.stringify(result.body)?.slice(0, 300)}`;
  if (result.status === 0) return `${where}: no answer (${result.failure})`;
  if (result.ms > answerDeadlineMs) return `${where}: slower than ${answerDeadlineMs} ms`;
  if (result.name === 'healthz') return result.status === 200 || result.status === 503 ? undefined : where;
  if (result.status === 503) {
    if (result.body?.error?.code !== 'service_unavailable' || result.body?.error?.status !== 503)
      return `${where}: not the error object`;
    if (!result.retryAfter) return `${where}: no Retry-After`;
    return undefined;
  }
  if (result.status !== 200) return `${where}: neither 200 nor 503`;
  if (result.name.startsWith('json-rpc')) {
    const error = result.body?.error;
    if (error && error.code !== -32603) return `${where}: a JSON-RPC error other than -32603`;
  }
  return undefined;
}

/** Why an answer is not the normal one (after recovery), or undefined. */
export function healthyProblem(result: ProbeResult): string | undefined {
  const where = `${result.name}: ${result.status} in ${Math.round(result.ms)} ms ${JSON.stringify(result.body)?.slice(0, 300)}`;
  if (result.status !== 200) return where;
  if (result.name.startsWith('json-rpc') && result.body?.result === undefined) return where;
  return undefined;
}

/**
 * Asks the probe set repeatedly for `durationMs`, every answer acceptable for an outage; returns the
 * answers seen (so a test can check that the outage was noticed at all).
 */
export async function probeThroughout(target: ProbeTarget, durationMs: number): Promise<ProbeResult[]> {
  const seen: ProbeResult[] = [];
  const deadline = Date.now() + durationMs;
  while (Date.now() < deadline) {
    const results = await probeAll(target);
    seen.push(...results);
    const problems = results.map(outageProblem).filter((problem) => problem !== undefined);
    expect(problems, 'answers during the outage').toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

/** Waits (at most `withinMs`) until every probe answers normally; returns how long that took. */
export async function recoveredWithin(target: ProbeTarget, withinMs: number): Promise<number> {
  const started = Date.now();
  let last: string[] = [];
  while (Date.now() - started < withinMs) {
    const results = await probeAll(target);
    last = results.map(healthyProblem).filter((problem) => problem !== undefined);
    if (last.length === 0) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not recovered within ${withinMs} ms: ${last.join('; ')}`);
}
