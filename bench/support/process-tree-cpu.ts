import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  command: string;
  /** utime + stime + cutime + cstime: its own CPU and that of its children that ended and were reaped. */
  cpuMs: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    // Fields after the command name: state is 3, ppid 4, utime 14, stime 15, cutime 16, cstime 17.
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return { pid, ppid: Number(fields[1]), command: stat.slice(open + 1, close), cpuMs: (ticks * 1000) / ticksPerSecond };
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) used so far by a process and everything under it, summed by command name (`postgres`,
 * `anvil`; the root itself under `rootName`). A child that ended counts in its parent's children's
 * times once reaped, so the sums do not drop when a process exits. Linux only: empty elsewhere.
 */
export function readTreeCpuMs(rootPid: number, rootName: string): Map<string, number> {
  let pids: number[];
  try {
    pids = readdirSync('/proc').flatMap((name) => (/^\d+$/.test(name) ? [Number(name)] : []));
  } catch {
    return new Map();
  }
  const stats = pids.flatMap((pid) => readStat(pid) ?? []);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const sums = new Map<string, number>();
  const root = stats.find((stat) => stat.pid === rootPid);
  const walk = (stat: ProcStat, name: string) => {
    sums.set(name, (sums.get(name) ?? 0) + stat.cpuMs);
    for (const child of children.get(stat.pid) ?? []) walk(child, child.command);
  };
  if (root) walk(root, rootName);
  return sums;
}

/** CPU used between two readings, as cores (CPU ms over wall ms), by command name. */
export function coresBetween(before: Map<string, number>, after: Map<string, number>, wallMs: number): Map<string, number> {
  const cores = new Map<string, number>();
  for (const [name, ms] of after) cores.set(name, Math.max(0, ms - (before.get(name) ?? 0)) / wallMs);
  return cores;
}
