// CPU time of a process and everything it started (the service: its embedded Postgres, every backend,
// and anvil), by kind of process, from /proc (Linux only).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

interface ProcessCpu {
  name: string;
  ppid: number;
  ms: number;
}

function readAll(): Map<number, ProcessCpu> {
  const all = new Map<number, ProcessCpu>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.set(Number(entry), {
        name,
        ppid: Number(fields[1]),
        ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond,
      });
    } catch {
      // Gone since the listing.
    }
  }
  return all;
}

/** Per pid of `root`'s tree: its name (`root` itself is labelled `rootLabel`) and CPU ms so far. */
export type TreeCpu = Map<number, { label: string; ms: number }>;

export function readTreeCpu(root: number, rootLabel: string): TreeCpu {
  const all = readAll();
  const tree: TreeCpu = new Map();
  const inTree = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 32; hops++) {
      if (at === root) return true;
      at = all.get(at)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, entry] of all) {
    if (inTree(pid)) tree.set(pid, { label: pid === root ? rootLabel : entry.name, ms: entry.ms });
  }
  return tree;
}

/**
 * CPU ms spent between two readings, summed by label. A process that started in between counts from
 * zero; one that ended in between is lost (the service's pooled connections live through a phase).
 */
export function cpuBetween(before: TreeCpu, after: TreeCpu): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [pid, entry] of after) {
    const from = before.get(pid)?.ms ?? 0;
    spent.set(entry.label, (spent.get(entry.label) ?? 0) + Math.max(0, entry.ms - from));
  }
  return spent;
}
