import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FuzzTarget, startFuzzTarget } from './fuzz-target.ts';
import { jsonRpcRequests } from './jsonrpc-requests.ts';
import { type Operation, operationsOf } from './operations.ts';
import { queryAttackRequests } from './rest-requests.ts';
import { createCaseChecker, failureReport, fuzzOperation, fuzzSettings } from './run-fuzz.ts';

/** One line per operation on stderr (FUZZ_PROGRESS=1): where a long run is, and which operation is slow. */
function progress(line: string): void {
  if (process.env.FUZZ_PROGRESS) process.stderr.write(`fuzz: ${line}\n`);
}

/** The share of the cases that go to the JSON-RPC endpoints' own generator. */
const jsonRpcShare = 0.15;
/** The share that goes to hostile query strings of the URL-form routes (Alchemy's NFT API v3 names, `getNFTsForOwner?owner=…`). */
const urlFormQueryShare = 0.05;
/** `/v1/rpc/{chain}/{network}/{apiKey}/getNFTsForOwner` and its kind: a method name after the key in the path. */
const urlFormRoute = /\/\{apiKey\}\/\w+$/;

/**
 * The fuzz: every operation of the served OpenAPI document gets an equal share of the REST cases,
 * the JSON-RPC endpoints their own. Every failure found is listed (one per operation, shrunk), with
 * the seed to replay it: `FUZZ_SEED=<seed> npm run test:fuzz`.
 */
export function defineFuzzSuite(defaultRuns: number, timeoutMs: number): void {
  const settings = fuzzSettings(defaultRuns);
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget();
  }, 120_000);
  afterAll(() => target?.close());

  it(
    `holds every invariant over ${settings.runs} generated requests`,
    async () => {
      const check = createCaseChecker(target);
      const operations = operationsOf(target.doc);
      const restRuns = Math.max(operations.length, Math.round(settings.runs * (1 - jsonRpcShare - urlFormQueryShare)));
      const perOperation = Math.max(1, Math.floor(restRuns / operations.length));
      const failures: string[] = [];
      for (const [index, operation] of operations.entries()) {
        const started = performance.now();
        const failure = await fuzzOperation(target, check, operation, { runs: perOperation, seed: settings.seed + index });
        if (failure) failures.push(failure);
        progress(
          `${operation.method} ${operation.path}: ${perOperation} cases, ${Math.round(performance.now() - started)} ms${failure ? ', FAILED' : ''}`,
        );
      }
      const urlForm = operations.filter((o) => urlFormRoute.test(o.path));
      expect(urlForm.length, 'URL-form routes in the OpenAPI document').toBeGreaterThan(0);
      const perUrlForm = Math.max(1, Math.round((settings.runs * urlFormQueryShare) / urlForm.length));
      for (const [index, operation] of urlForm.entries()) {
        const requests = queryAttackRequests(operation, target.hints);
        const seed = settings.seed + operations.length + index;
        const failure = await fuzzOperation(target, check, operation, { runs: perUrlForm, seed, requests });
        if (failure) failures.push(`hostile query string: ${failure}`);
      }
      progress(`URL-form query strings: ${perUrlForm} cases each of ${urlForm.length} routes`);
      const rpc: Operation = { method: 'POST', path: '/v1/rpc/{chain}/{network}', parameters: [], auth: 'key', jsonRpc: true };
      const details = await fc.check(
        fc.asyncProperty(jsonRpcRequests, (request) => check(rpc, request)),
        {
          numRuns: Math.max(1, settings.runs - perOperation * operations.length - perUrlForm * urlForm.length),
          seed: settings.seed,
        },
      );
      if (details.failed) failures.push(failureReport('JSON-RPC', settings.seed, details));
      const health = await target.send({ method: 'GET', target: '/healthz' });
      expect(health.status, '/healthz after the fuzz').toBe(200);
      expect(failures, `FUZZ_SEED=${settings.seed} FUZZ_RUNS=${settings.runs}\n${failures.join('\n\n')}`).toEqual([]);
    },
    timeoutMs,
  );
}
