// The load and its observers as a process of their own, driven by the cluster harness over the IPC
// channel (test/cluster/load/contract.ts). Spawned inside the rx namespace:
//   ip netns exec bk-rx node --import tsx test/cluster/load/main.ts   (stdio with 'ipc')
import type { HarnessMessage, LoadMessage } from './contract.ts';
import { type LoadRun, startLoad } from './load-run.ts';

let run: LoadRun | undefined;

const send = (message: LoadMessage) =>
  new Promise<void>((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });

const log = (line: string) => process.stderr.write(`[load] ${new Date().toISOString()} ${line}\n`);

async function fail(error: unknown): Promise<never> {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`error: ${message}`);
  await send({ type: 'error', message });
  await run?.stop().catch(() => undefined);
  process.exit(1);
}

async function handle(message: HarnessMessage): Promise<void> {
  if (message.type === 'start') {
    if (run) throw new Error('the load was already started');
    run = await startLoad(message.targets, { ...message.settings, log });
    await send({ type: 'started' });
    return;
  }
  if (message.type === 'stop') {
    await run?.stop();
    await send({ type: 'stopped' });
    process.exit(0);
  }
  if (!run) throw new Error(`'${message.type}' before 'start'`);
  if (message.type === 'phase') run.phase(message.name);
  else if (message.type === 'health') await send({ type: 'health', health: run.health() });
  else if (message.type === 'drain') await send({ type: 'drained', report: await run.drain(message.timeoutMs) });
  else if (message.type === 'verdict') await send({ type: 'verdict', verdict: run.verdict() });
}

if (!process.send) {
  log('run me from the cluster harness (an IPC channel is needed): npm run test:cluster');
  process.exit(2);
}
process.on('message', (message: HarnessMessage) => {
  handle(message).catch(fail);
});
// The harness went away: stop what runs here, quietly.
process.on('disconnect', () => {
  void (run?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});
process.on('unhandledRejection', (error) => void fail(error));
