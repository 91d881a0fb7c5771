import { join } from 'node:path';
import type { ClusterTargets, DrainReport, HarnessMessage, LoadHealth, LoadMessage, Verdict } from './load/contract.ts';
import { repoRoot } from './nodes.ts';
import { type HostProcess, killHard, spawnInNamespace } from './shell.ts';
import { hosts } from './topology.ts';

/** The load and its observers, in the rx host, driven over the IPC channel (test/cluster/load/contract.ts). */
export interface LoadProcess {
  readonly process: HostProcess;
  start(targets: ClusterTargets): Promise<void>;
  phase(name: string): void;
  health(): Promise<LoadHealth>;
  drain(timeoutMs: number): Promise<DrainReport>;
  verdict(): Promise<Verdict>;
  stop(): Promise<void>;
}

/** CLUSTER_LOAD_ENTRY replaces the load (a stand-in while developing the harness). */
const loadEntry = process.env.CLUSTER_LOAD_ENTRY ?? join(repoRoot, 'test/cluster/load/main.ts');

export function spawnLoad(runDir: string): LoadProcess {
  const processHandle = spawnInNamespace(hosts.rx.namespace, process.execPath, ['--import', 'tsx', loadEntry], {
    logFile: join(runDir, 'load.log'),
    cwd: repoRoot,
    ipc: true,
  });
  const child = processHandle.child;
  let failure: string | undefined;
  const waiters = new Set<(message: LoadMessage) => void>();
  child.on('message', (message: LoadMessage) => {
    if (message.type === 'error') failure = message.message;
    for (const waiter of [...waiters]) waiter(message);
  });

  /** Sends `message` and resolves with the first reply of type `expected` (rejects on error, exit or timeout). */
  function ask<T extends LoadMessage['type']>(
    message: HarnessMessage,
    expected: T,
    timeoutMs: number,
  ): Promise<Extract<LoadMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        child.off('exit', onExit);
      };
      const waiter = (reply: LoadMessage) => {
        if (reply.type === expected) {
          done();
          resolve(reply as Extract<LoadMessage, { type: T }>);
        } else if (reply.type === 'error') {
          done();
          reject(new Error(`the load failed: ${reply.message}`));
        }
      };
      const onExit = () => {
        done();
        reject(new Error(`the load exited${failure ? `: ${failure}` : ''} (log: ${processHandle.logFile})`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the load did not answer ${message.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(waiter);
      child.once('exit', onExit);
      if (!processHandle.alive()) return onExit();
      child.send(message);
    });
  }

  return {
    process: processHandle,
    async start(targets) {
      await ask({ type: 'start', targets }, 'started', 180_000);
    },
    phase(name) {
      if (processHandle.alive()) child.send({ type: 'phase', name } satisfies HarnessMessage);
    },
    async health() {
      return (await ask({ type: 'health' }, 'health', 10_000)).health;
    },
    async drain(timeoutMs) {
      return (await ask({ type: 'drain', timeoutMs }, 'drained', timeoutMs + 30_000)).report;
    },
    async verdict() {
      return (await ask({ type: 'verdict' }, 'verdict', 60_000)).verdict;
    },
    async stop() {
      if (!processHandle.alive()) return;
      await ask({ type: 'stop' }, 'stopped', 15_000).catch(() => undefined);
      await Promise.race([processHandle.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await killHard(processHandle);
    },
  };
}
