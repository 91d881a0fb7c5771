import { readdirSync } from 'node:fs';
import { type ProcStat, readProcStat } from './cpu-time.ts';

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
  const stats = pids.flatMap((pid) => readProcStat(pid) ?? []);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const sums = new Map<string, number>();
  const root = stats.find((stat) => stat.pid === rootPid);
  const walk = (stat: ProcStat, name: string) => {
    // Its own time and its reaped children's: a process that ends moves into its parent's count, not out of the sum.
    sums.set(name, (sums.get(name) ?? 0) + stat.ownMs + stat.reapedChildrenMs);
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
