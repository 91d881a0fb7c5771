import { spawnSync } from 'node:child_process';
import { waitFor } from './calls.ts';
import { type ComposeProject, compose, containerOf, podman, prepareProject, removeProject } from './compose.ts';
import { deliverOneWebhook } from './delivery.ts';
import { makeFirstCalls } from './first-calls.ts';
import { missingContainerRequirements } from './requirements.ts';
import { restartApiUnderLoad } from './restart-under-load.ts';
import { landOneUserOperation } from './user-operation.ts';

/**
 * `npm run test:containers`: deploy/compose/compose.yaml brought up with podman-compose from the images
 * `npm run image` built (Postgres 15, Redis, a devnet, two API nodes, a worker, haproxy), then, through
 * haproxy: the first calls a user makes, a signed webhook delivery, a UserOperation that lands, and one
 * API container restarted under load with no failed request; then it is brought down. Prints a table.
 */
const services = ['postgres', 'redis', 'chain', 'api1', 'api2', 'worker', 'haproxy', 'receiver'];

async function main(): Promise<number> {
  const missing = missingContainerRequirements();
  if (missing) {
    const line = `compose test skipped: ${missing}`;
    process.stdout.write(`${line}\n`);
    return process.env.BK_CONTAINERS_REQUIRED === '1' ? 1 : 0;
  }
  const rows: [string, string][] = [];
  const time = async <T>(step: string, action: () => Promise<T> | T, describe: (value: T, seconds: number) => string) => {
    const started = Date.now();
    const value = await action();
    const seconds = (Date.now() - started) / 1_000;
    rows.push([step, describe(value, seconds)]);
    process.stdout.write(`[containers] ${step}: ${rows.at(-1)?.[1]}\n`);
    return value;
  };
  const project = await prepareProject();
  const lbUrl = `http://127.0.0.1:${project.httpPort}`;
  const chainUrl = `http://127.0.0.1:${project.chainPort}`;
  let failed = false;
  try {
    await time(
      'podman-compose up',
      () => compose(project, ['up', '-d'], 600_000),
      (_, s) => `${services.length} containers in ${s.toFixed(0)} s`,
    );
    await time(
      'serving through haproxy',
      () => untilServing(lbUrl),
      (_, s) => `/healthz 200 after ${s.toFixed(0)} s`,
    );
    const first = await time(
      "the README's first calls",
      () => makeFirstCalls(project, lbUrl),
      (value) => `account + key, eth_blockNumber ${value.blockNumber}, eth_chainId ${value.chainId}, gas prices`,
    );
    await time(
      'webhook delivery',
      () =>
        deliverOneWebhook(
          {
            lb: lbUrl,
            chain: chainUrl,
            receiver: `http://${addressOf(project, 'receiver')}:9000/hook`,
            receiverInbox: `http://127.0.0.1:${project.receiverPort}/received`,
          },
          first.key,
        ),
      (seconds) => `delivered and verified (standardwebhooks) ${seconds.toFixed(1)} s after the transfer`,
    );
    await time(
      'UserOperation',
      () => landOneUserOperation({ lb: lbUrl, chain: chainUrl }, first.key),
      (seconds) => `landed ${seconds.toFixed(1)} s after eth_sendUserOperation`,
    );
    const load = await time(
      'api1 restarted under load',
      () => restartApiUnderLoad(project, lbUrl, first.key, 'api1'),
      (value) => `requests ${value.requests}, failures ${value.failed}, back in ${value.restartS.toFixed(1)} s`,
    );
    if (load.failed > 0) {
      failed = true;
      process.stdout.write(`failed requests during the restart:\n  ${load.failures.join('\n  ')}\n`);
    }
  } catch (error) {
    failed = true;
    process.stdout.write(`\nFAILED: ${(error as Error).message}\n`);
    printLogs(project);
  } finally {
    await time(
      'podman-compose down',
      () => removeProject(project),
      (_, s) => `${s.toFixed(0)} s`,
    );
  }
  process.stdout.write(`\n${report(rows)}\n${failed ? 'COMPOSE TEST FAILED' : 'COMPOSE TEST PASSED'}\n`);
  return failed ? 1 : 0;
}

async function untilServing(lbUrl: string): Promise<void> {
  const up = await waitFor(async () => {
    const response = await fetch(`${lbUrl}/healthz`, { signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status === 200 ? true : undefined;
  }, 240_000);
  if (!up) throw new Error(`haproxy at ${lbUrl} did not answer /healthz 200 within 240 s`);
}

function addressOf(project: ComposeProject, service: string): string {
  const format = '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}';
  return podman(['inspect', '--format', format, containerOf(project, service)]).trim();
}

function printLogs(project: ComposeProject): void {
  for (const service of services) {
    const logs = spawnSync('podman', ['logs', '--tail', '15', containerOf(project, service)], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    process.stdout.write(`\n--- ${service} ---\n${`${logs.stdout ?? ''}${logs.stderr ?? ''}`.slice(-3_000)}`);
  }
}

function report(rows: [string, string][]): string {
  const sizes = ['localhost/blockyard:latest', 'localhost/blockyard-infra:latest'].map((image) => {
    const bytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]).trim());
    return `| image ${image} | ${(bytes / 1e6).toFixed(0)} MB |`;
  });
  return ['| compose run | result |', '|---|---|', ...sizes, ...rows.map(([step, result]) => `| ${step} | ${result} |`)].join(
    '\n',
  );
}

process.exitCode = await main();
