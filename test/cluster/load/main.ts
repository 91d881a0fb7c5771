// The load and its observers as a process of their own, driven by the cluster harness over the IPC
// channel (test/cluster/load/contract.ts). Spawned inside the rx namespace:
//   ip netns exec bk-rx node --import tsx test/cluster/load/main.ts   (stdio with 'ipc')
import type { HarnessMessage, LoadMessage } from './contract.ts';
import { type LoadRun, startLoad } from './load-run.ts';

let run: LoadRun | undefined;
/** Messages that come while setup runs wait for it (setup takes a while; a message then is no mistake). */
let starting: Promise<LoadRun> | undefined;

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
    if (starting) throw new Error('the load was already started');
    starting = startLoad(message.targets, { ...message.settings, log });
    run = await starting;
    await send({ type: 'started' });
    return;
  }
  if (message.type === 'stop') {
    await (starting ? starting.then((started) => started.stop()) : undefined);
    await send({ type: 'stopped' });
    process.exit(0);
  }
  if (!starting) throw new Error(`'${message.type}' before 'start'`);
  const started = await starting;
  if (message.type === 'phase') started.phase(message.name);
  else if (message.type === 'health') await send({ type: 'health', health: started.health() });
  else if (message.type === 'drain') await send({ type: 'drained', report: await started.drain(message.timeoutMs) });
  else if (message.type === 'verdict') await send({ type: 'verdict', verdict: started.verdict() });
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
