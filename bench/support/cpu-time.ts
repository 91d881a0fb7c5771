import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

/** What /proc/<pid>/stat says of a process (Linux only). */
export interface ProcStat {
  pid: number;
  ppid: number;
  command: string;
  /** Its own CPU time (user + system, all threads), in milliseconds. */
  ownMs: number;
  /** The CPU time of its children that ended and were reaped, in milliseconds. */
  reapedChildrenMs: number;
}

/** The process's /proc/<pid>/stat, or undefined if it cannot be read (gone, or not Linux). */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces, inside parentheses. After it: ppid is field 4, utime and
    // stime 14 and 15, cutime and cstime 16 and 17.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const ms = (a: number, b: number) => ((Number(fields[a]) + Number(fields[b])) * 1000) / ticksPerSecond;
    return {
      pid,
      ppid: Number(fields[1]),
      command: stat.slice(stat.indexOf('(') + 1, close),
      ownMs: ms(11, 12),
      reapedChildrenMs: ms(13, 14),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, all threads) a process has used so far, in milliseconds; NaN if it cannot
 * be read (Linux only). Unlike throughput it barely moves when other processes compete for the cores.
 */
export function readCpuMs(pid: number): number {
  return readProcStat(pid)?.ownMs ?? Number.NaN;
}
