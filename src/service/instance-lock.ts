import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, processCommandLine } from '../core/processes.ts';

/** What the lock file says about the process that holds it. */
export interface InstanceInfo {
  readonly pid: number;
  readonly startedAt: string;
  /** Where it serves, once it listens. */
  readonly url?: string;
  /** The embedded database's DATABASE_URL, for processes that share it (`blockyard migrate`, other roles). */
  readonly databaseUrl?: string;
  /** The embedded devnet's URLs, for processes that join this one (`--join`). */
  readonly devnet?: { readonly url: string; readonly wsUrl: string };
}

export interface InstanceLock {
  /** Adds what the process learned after taking the lock (its URL). */
  update(info: Partial<Pick<InstanceInfo, 'url' | 'databaseUrl' | 'devnet'>>): void;
  release(): void;
}

/** Another live process holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: InstanceInfo,
  ) {
    const where = holder.url ? `, serving ${holder.url}` : '';
    super(
      `another Blockyard (pid ${holder.pid}${where}, started ${holder.startedAt}) is running on the data directory ${dataDir}; ` +
        'stop it first (Ctrl-C or `kill ' +
        holder.pid +
        `\`), run this one beside it with --join ${dataDir}, or give this one its own --data-dir`,
    );
    this.name = 'DataDirInUseError';
  }
}

export function instanceLockPath(dataDir: string): string {
  return join(dataDir, 'blockyard.pid');
}

/** The live holder of the data directory's lock, if any (a lock left by a killed process is ignored). */
export async function readInstanceLock(dataDir: string): Promise<InstanceInfo | undefined> {
  const info = readInfo(instanceLockPath(dataDir));
  return info && (await isLiveService(info.pid)) ? info : undefined;
}

/** Alive and a Node process: after a reboot the pid may belong to something else entirely. */
async function isLiveService(pid: number): Promise<boolean> {
  if (!isProcessAlive(pid)) return false;
  const commandLine = await processCommandLine(pid);
  return commandLine === undefined || /node|blockyard/.test(commandLine);
}

/**
 * One service process per data directory: the embedded database and devnet live there, and a second
 * start must not touch them while the first runs. Taken atomically (the file is created exclusively);
 * a lock whose process is gone (killed, crashed) is taken over. Released on stop and on process exit.
 */
export async function acquireInstanceLock(dataDir: string): Promise<InstanceLock> {
  const path = instanceLockPath(dataDir);
  let info: InstanceInfo = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(info), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = readInfo(path);
      if (holder && (await isLiveService(holder.pid))) throw new DataDirInUseError(dataDir, holder);
      rmSync(path, { force: true });
    }
  }
  let held = true;
  const releaseOnExit = () => release();
  function release() {
    if (!held) return;
    held = false;
    process.off('exit', releaseOnExit);
    // Only our own lock: never one another process took after ours was released.
    if (readInfo(path)?.pid === process.pid) rmSync(path, { force: true });
  }
  process.on('exit', releaseOnExit);
  return {
    update(more) {
      if (!held) return;
      info = { ...info, ...more };
      writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
    },
    release,
  };
}

function readInfo(path: string): InstanceInfo | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<InstanceInfo>;
    return typeof parsed.pid === 'number' ? (parsed as InstanceInfo) : undefined;
  } catch {
    return undefined;
  }
}
