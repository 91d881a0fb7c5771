// A full garbage collection in the running service, on demand, without starting it any differently
// from `npm start`: SIGUSR1 opens Node's inspector on 127.0.0.1:9229 (the process says where in its
// log), and the inspector's HeapProfiler.collectGarbage runs a full mark-compact. What a process holds
// just after one is what a leak raises; between collections RSS is a sawtooth whose peaks say nothing.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import WebSocket from 'ws';

const listeningLine = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/;
const failedLine = /Starting inspector on .* failed: (.*)/;

export interface FullCollector {
  /** Runs two full collections (the second frees what the first's finalizers let go); false when it cannot. */
  collect(): Promise<boolean>;
  /** Why it cannot, once it has tried and failed. */
  readonly unavailable: string | undefined;
}

export function fullCollector(options: { pid: number; logFile: string }): FullCollector {
  let inspectorUrl: string | undefined;
  let unavailable: string | undefined;

  const openInspector = async (): Promise<string | undefined> => {
    if (inspectorUrl || unavailable) return inspectorUrl;
    const logBefore = statSync(options.logFile).size;
    process.kill(options.pid, 'SIGUSR1');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const written = readFrom(options.logFile, logBefore);
      const listening = listeningLine.exec(written)?.[1];
      if (listening) {
        inspectorUrl = listening;
        return inspectorUrl;
      }
      const failed = failedLine.exec(written)?.[1];
      if (failed) {
        unavailable = `the service's inspector did not open: ${failed}`;
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    unavailable = 'the service did not say its inspector opened within 10 s of SIGUSR1';
    return undefined;
  };

  return {
    get unavailable() {
      return unavailable;
    },
    async collect() {
      const url = await openInspector();
      if (!url) return false;
      const socket = new WebSocket(url);
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        for (const id of [1, 2]) await call(socket, id, 'HeapProfiler.collectGarbage');
        return true;
      } catch (error) {
        unavailable = `the inspector's collection failed: ${(error as Error).message}`;
        return false;
      } finally {
        socket.close();
      }
    },
  };
}

/** What the file holds past `offset` (the service's log grows to megabytes over a soak: not read again whole). */
function readFrom(file: string, offset: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, statSync(file).size - offset));
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function call(socket: WebSocket, id: number, method: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method} gave no answer within 30 s`)), 30_000);
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
      if (message.id !== id) return;
      clearTimeout(timer);
      socket.off('message', onMessage);
      if (message.error) reject(new Error(message.error.message));
      else resolve();
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ id, method }));
  });
}
