import fc from 'fast-check';
import type { Answer, FuzzTarget, RowCounts } from './fuzz-target.ts';
import { changedCounts, problemsOf } from './invariants.ts';
import type { Operation } from './operations.ts';
import { type FuzzRequest, requestsFor } from './rest-requests.ts';

/** The most one operation's cases (and the shrinking of a failure) may take. */
export const operationTimeLimitMs = 60_000;

export interface FuzzSettings {
  /** Cases in total, shared between the operations. */
  runs: number;
  seed: number;
}

/** The seed when FUZZ_SEED is not set: the same cases every run, so the suite and CI are repeatable. */
const defaultSeed = 20_261_126;

/**
 * FUZZ_RUNS (default `defaultRuns`) and FUZZ_SEED (default `defaultSeed`; `random` for a new one each
 * run, to explore further). The seed is printed on failure.
 */
export function fuzzSettings(defaultRuns: number): FuzzSettings {
  const runs = Number(process.env.FUZZ_RUNS ?? defaultRuns);
  const given = process.env.FUZZ_SEED;
  const seed = given === 'random' ? Math.floor(Math.random() * 2 ** 31) : given ? Number(given) : defaultSeed;
  return { runs, seed };
}

function authHeaders(target: FuzzTarget, operation: Operation): Record<string, string> {
  if (operation.auth === 'admin') return { authorization: `Bearer ${target.t.adminToken}` };
  if (operation.auth === 'key') return { 'x-api-key': target.key };
  return {};
}

/** A 2xx that changes state may have effects landing just after it: wait until the counts settle. */
async function settledCounts(target: FuzzTarget, previous: RowCounts): Promise<RowCounts> {
  let last = previous;
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = await target.rowCounts();
    if (changedCounts(last, now).length === 0) return now;
    last = now;
  }
  return last;
}

/**
 * Checks every invariant on one request: the answer's own (status, shape, no leaks), no resource
 * created or removed by a refusal, and /healthz still 200 every 50 cases.
 */
export function createCaseChecker(target: FuzzTarget) {
  let counts: RowCounts | undefined;
  let cases = 0;
  return async function check(operation: Operation, request: FuzzRequest | (Omit<FuzzRequest, 'broken'> & { broken?: string })) {
    counts ??= await target.rowCounts();
    let answer: Answer;
    const started = performance.now();
    try {
      answer = await target.send({ ...request, headers: { ...authHeaders(target, operation), ...request.headers } });
    } catch (error) {
      throw new Error(`no answer: ${(error as Error).message}`);
    }
    const ms = performance.now() - started;
    if (ms > 2000 && process.env.FUZZ_PROGRESS)
      process.stderr.write(`fuzz: slow (${Math.round(ms)} ms): ${describeRequest(request)}\n`);
    const problems = problemsOf(operation, answer);
    const after = await target.rowCounts();
    const changed = changedCounts(counts, after);
    if (answer.status >= 400 && changed.length > 0) problems.push(`a refused request changed rows: ${changed.join(', ')}`);
    counts = answer.status < 300 && request.method !== 'GET' ? await settledCounts(target, after) : after;
    if (++cases % 50 === 0) {
      const health = await target.send({ method: 'GET', target: '/healthz' });
      if (health.status !== 200) problems.push(`/healthz answered ${health.status} after this request`);
    }
    if (problems.length > 0) {
      throw new Error(`${problems.join('\n')}\n(answer ${answer.status}: ${answer.text.slice(0, 300)})`);
    }
  };
}

/** A request as a short line a reader can replay (bodies cut at 300 characters). */
export function describeRequest(
  request: Pick<FuzzRequest, 'method' | 'target' | 'headers' | 'body'> & { broken?: string },
): string {
  const body =
    request.body === undefined
      ? ''
      : ` body(${request.body.length} B)=${JSON.stringify(request.body.toString('latin1').slice(0, 300))}`;
  const target =
    request.target.length > 300 ? `${request.target.slice(0, 300)}…(${request.target.length} chars)` : request.target;
  return `${request.method} ${target} headers=${JSON.stringify(request.headers)}${body}${request.broken ? ` [broken: ${request.broken}]` : ''}`;
}

/** Runs `runs` cases for one operation (from its schema, or `requests`); returns fast-check's report (seed, shrunk counterexample) on failure. */
export async function fuzzOperation(
  target: FuzzTarget,
  check: ReturnType<typeof createCaseChecker>,
  operation: Operation,
  options: { runs: number; seed: number; requests?: fc.Arbitrary<FuzzRequest> },
): Promise<string | undefined> {
  const arbitrary = options.requests ?? requestsFor(operation, target.hints);
  const details = await fc.check(
    fc.asyncProperty(arbitrary, (request) => check(operation, request)),
    // A slow failure shrinks slowly: past the time limit the smallest counterexample so far is reported.
    { numRuns: options.runs, seed: options.seed, interruptAfterTimeLimit: operationTimeLimitMs, markInterruptAsFailure: true },
  );
  return details.failed ? failureReport(`${operation.method} ${operation.path}`, options.seed, details) : undefined;
}

/** What a failed run prints: the seed and path to replay it, the shrunk request, the broken invariants. */
export function failureReport(label: string, seed: number, details: fc.RunDetails<[FuzzRequest]>): string {
  const example = details.counterexample?.[0];
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return [
    `${label}: seed ${seed}, path ${details.counterexamplePath}`,
    example ? `  request: ${describeRequest(example)}` : '',
    `  ${error.replaceAll('\n', '\n  ')}`,
  ].join('\n');
}
