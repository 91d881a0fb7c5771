import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isProcessAlive, processCommandLine, signalProcess, waitForProcessExit } from '../../core/processes.ts';

/** A fast shutdown rolls back open transactions and writes a checkpoint: seconds at most. */
const fastShutdownMs = 20_000;
const immediateShutdownMs = 5_000;

/**
 * What a killed service leaves behind in the server's data directory: its Postgres still running
 * (a SIGKILLed parent cannot stop it), or a `postmaster.pid` naming a process that is gone or is
 * now some other program. The first is stopped (fast shutdown, then immediate); the second is
 * removed, since Postgres refuses to start while it names a live process.
 */
export async function clearStaleServer(dataDir: string, logger: Logger): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const text = await readFile(pidFile, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && (await isOurServer(pid))) {
    logger.warn({ pid }, 'stopping the embedded Postgres left running by an earlier run');
    await stopOrphan(pid);
    return;
  }
  logger.info({ pid }, 'removing a stale postmaster.pid left by an earlier run');
  await rm(pidFile, { force: true });
}

async function isOurServer(pid: number): Promise<boolean> {
  if (!isProcessAlive(pid)) return false;
  const commandLine = await processCommandLine(pid);
  // Where /proc is missing the command cannot be checked: a live pid is taken to be the server.
  return commandLine === undefined || commandLine.includes('postgres');
}

async function stopOrphan(pid: number): Promise<void> {
  signalProcess(pid, 'SIGINT');
  if (await waitForProcessExit(pid, fastShutdownMs)) return;
  signalProcess(pid, 'SIGQUIT');
  if (await waitForProcessExit(pid, immediateShutdownMs)) return;
  signalProcess(pid, 'SIGKILL');
  if (!(await waitForProcessExit(pid, immediateShutdownMs))) {
    throw new Error(`the embedded Postgres left by an earlier run (pid ${pid}) could not be stopped; stop it and start again`);
  }
}
