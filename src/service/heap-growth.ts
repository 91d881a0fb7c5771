import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old space grow past what survived its last full collection before it collects
 * again, in percent. V8 picks 100-300% for a busy, fast process: under a steady stream of requests the
 * service's old space then fills with short-lived garbage (answers cached for a block, access lines
 * waiting to be written) to three times its live size before a collection, and RSS follows. At 50% the
 * service held 196-206 MiB at most under the JSON-RPC benchmark's load instead of 226-263, at the same
 * throughput (docs/benchmarks.md).
 */
export const heapGrowingPercent = 50;

/**
 * Sets V8's heap growth for the service process, unless node was started with its own
 * (`node --heap-growing-percent=N bin/blockyard.js start`). V8 reads the value at each full
 * collection, so setting it once the process runs takes effect from the next one.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
  return true;
}
