import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from './calls.ts';
import { type ComposeProject, containerOf, podman } from './compose.ts';

export interface LoadOutcome {
  readonly requests: number;
  readonly failed: number;
  /** The first few failures, for the report. */
  readonly failures: string[];
  readonly restartS: number;
}

const concurrency = 8;

/**
 * Steady eth_blockNumber calls through haproxy while one API container is restarted (SIGTERM: it drains
 * and stops, then starts again) until haproxy serves from it again. Every call must answer 200 with a
 * result: a failure is a request lost to the restart.
 */
export async function restartApiUnderLoad(
  project: ComposeProject,
  lbUrl: string,
  key: string,
  service: string,
): Promise<LoadOutcome> {
  let stop = false;
  let requests = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (!stop) {
      requests++;
      try {
        const response = await fetch(`${lbUrl}/v1/rpc/ethereum/devnet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        if (response.status !== 200 || !text.includes('"result"')) failures.push(`HTTP ${response.status} ${text.slice(0, 120)}`);
      } catch (error) {
        failures.push(String(error));
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  await sleep(3_000);
  const container = containerOf(project, service);
  const started = Date.now();
  podman(['restart', '-t', '30', container]);
  const back = await waitFor(async () => {
    const answer = podman(['exec', container, 'node', '-e', healthProbe], 15_000);
    return answer.trim() === '200' ? true : undefined;
  }, 120_000);
  const restartS = (Date.now() - started) / 1_000;
  // haproxy takes it back after two good checks (rise 2, 500 ms apart); the load runs on past that.
  await sleep(5_000);
  stop = true;
  await Promise.all(workers);
  if (!back) failures.push(`${service} did not answer /healthz within 120 s of its restart`);
  return { requests, failed: failures.length, failures: failures.slice(0, 5), restartS };
}

const healthProbe = "fetch('http://127.0.0.1:8080/healthz').then((r) => console.log(r.status), () => console.log('down'))";
