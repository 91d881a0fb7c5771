// The parent's side of the WebSocket load generators: one child process per share of the clients.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClientsClosed, ClientsReady, ClientsReport, FromClients, ToClients, WsEndpoint } from './ws-protocol.ts';

export interface LoadProcess {
  readonly pid: number;
  readonly clients: number;
  /** Opens one client per endpoint (`clients` of them). */
  connect(endpoints: WsEndpoint[], timeoutMs: number): Promise<ClientsReady>;
  measure(): void;
  report(timeoutMs: number): Promise<ClientsReport>;
  /** Closes every client, so that `connect` can open them again to another server. */
  disconnect(timeoutMs: number): Promise<ClientsClosed>;
  /** SIGTERM, then SIGKILL after 5 s. Idempotent. */
  stop(): Promise<void>;
}

const script = fileURLToPath(new URL('./ws-clients.ts', import.meta.url));
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Splits `clients` over `processes` load-generator processes. */
export function startLoadProcesses(clients: number, processes: number, maxLifeMs: number): LoadProcess[] {
  return Array.from({ length: processes }, (_, index) => {
    const share = Math.floor(clients / processes) + (index < clients % processes ? 1 : 0);
    return startLoadProcess(share, maxLifeMs);
  });
}

function startLoadProcess(clients: number, maxLifeMs: number): LoadProcess {
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_WS_CLIENT_MAX_MS: String(maxLifeMs) },
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  const ask = <T extends FromClients>(message: ToClients, type: T['type'], timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        reject(new Error(`load process ${child.pid} sent no ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (answer: FromClients) => {
        if (answer.type !== type) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(answer as T);
      };
      child.on('message', onMessage);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`load process ${child.pid} exited (code ${child.exitCode})`));
      });
      child.send(message);
    });

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    clients,
    connect: (endpoints, timeoutMs) =>
      ask<ClientsReady>({ type: 'connect', endpoints, concurrency: 50, timeoutMs: 15_000 }, 'ready', timeoutMs),
    measure: () => child.send({ type: 'measure' } satisfies ToClients),
    report: (timeoutMs) => ask<ClientsReport>({ type: 'report' }, 'report', timeoutMs),
    // The process is given most of the time; the rest is for its answer to arrive.
    disconnect: (timeoutMs) =>
      ask<ClientsClosed>({ type: 'disconnect', timeoutMs: Math.max(1, timeoutMs - 1_000) }, 'closed', timeoutMs),
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
