// Busy processes that compete for the cores during bench/ws.ts (BENCH_WS_BUSY), so a "not quiet
// machine" can be reproduced on demand instead of waited for. Each spins for at most `maxLifeMs` on
// its own, and is killed when the benchmark stops or exits.
import { type ChildProcess, spawn } from 'node:child_process';

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface CpuBurners {
  readonly count: number;
  stop(): void;
}

/** Starts `count` processes that each keep one core busy (a plain loop, default priority). */
export function startCpuBurners(count: number, maxLifeMs: number): CpuBurners {
  const spin = `const end = Date.now() + ${Math.round(maxLifeMs)}; while (Date.now() < end) {}`;
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['-e', spin], { stdio: 'ignore' });
    running.add(child);
    child.once('exit', () => running.delete(child));
    return child;
  });
  return {
    count,
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}
