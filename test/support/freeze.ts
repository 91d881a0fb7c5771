import { readdirSync, readFileSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Stops a process with SIGSTOP and returns once every one of its threads is stopped. `kill` returns as
 * soon as the signal is queued: until one of the target's threads takes it and starts the group stop,
 * its other threads run on, so an anvil answered a request sent right after the kill (seen in about 1 of
 * 15 tries on a busy machine). A process that exited meanwhile counts as stopped.
 */
export function freeze(pid: number, timeoutMs = 2_000): void {
  process.kill(pid, 'SIGSTOP');
  const deadline = Date.now() + timeoutMs;
  while (!everyThreadStopped(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within ${timeoutMs} ms of SIGSTOP`);
    Atomics.wait(pause, 0, 0, 1);
  }
}

function everyThreadStopped(pid: number): boolean {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return threads.every((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The state is the first field after the command name, which is in parentheses and may hold spaces.
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state === 'T' || state === 't' || state === 'Z' || state === 'X';
    } catch {
      return true;
    }
  });
}
