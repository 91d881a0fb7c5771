import { cpus, loadavg, totalmem } from 'node:os';

/**
 * Bounds a benchmark run: Ctrl-C or the deadline runs `cleanup` (stopping every child) and exits.
 * Returns a function that disarms the deadline once the run has finished.
 */
export function guardRun(options: { deadlineMs: number; cleanup: () => Promise<void>; log: (line: string) => void }): () => void {
  process.once('SIGINT', () => {
    options.log('interrupted: stopping the child processes');
    void options.cleanup().finally(() => process.exit(130));
  });
  const watchdog = setTimeout(() => {
    options.log(`did not finish within ${options.deadlineMs / 1000} s: stopping`);
    void options.cleanup().finally(() => process.exit(1));
  }, options.deadlineMs);
  watchdog.unref();
  return () => clearTimeout(watchdog);
}

/** One line naming the machine a result was measured on. */
export function describeMachine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  return `machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, load average ${load}`;
}
