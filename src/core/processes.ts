import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const pollMs = 50;

/** Whether a process with this pid exists (a zombie counts as gone where /proc tells). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line with spaces between arguments; undefined where /proc is missing or it is gone. */
export async function processCommandLine(pid: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  // A zombie's command line is empty.
  return raw ? raw.replaceAll('\0', ' ').trim() : '';
}

export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Polls until the process is gone (or a zombie); false when `timeoutMs` passes first. */
export async function waitForProcessExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isProcessAlive(pid) || (await processCommandLine(pid)) === '') return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}
