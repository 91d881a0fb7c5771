import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/**
 * A plain busy loop in a process of its own, no Blockyard work in it: what any one core's worth of
 * work at the given niceness (0 as every process of the run, 19 the lowest) does to tenant A's reads
 * on this machine. Bounded: it ends by itself after `maxMs` if never stopped.
 */
export async function startBurner(niceness: number, maxMs: number): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`], {
    stdio: 'ignore',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  if (niceness !== 0) setPriority(child.pid!, niceness);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
