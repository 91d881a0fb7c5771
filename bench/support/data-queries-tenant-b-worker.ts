// Tenant B's loops in their own thread (bench/support/data-queries-tenant-b.ts): they run until the
// parent posts 'stop', then post back what they saw.
import { parentPort, workerData } from 'node:worker_threads';
import { runTenantBLoops, type TenantBSettings } from './data-queries-tenant-b.ts';

const abort = new AbortController();
parentPort!.on('message', (message) => {
  if (message === 'stop') abort.abort();
});
const samples = await runTenantBLoops(workerData as TenantBSettings, abort.signal);
parentPort!.postMessage(samples);
parentPort!.close();
