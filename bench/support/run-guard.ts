import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Bounds a benchmark run: Ctrl-C or the deadline runs `stop` (stopping every child) and exits.
 * Returns `cleanup`, which runs `stop` once however often it is called (the run's own end, a signal
 * and the deadline may all ask), and `disarm`, which cancels the deadline once the run has finished.
 */
export function guardRun(options: { deadlineMs: number; stop: () => Promise<void>; log: (line: string) => void }): {
  cleanup: () => Promise<void>;
  disarm: () => void;
} {
  let stopping: Promise<void> | undefined;
  const cleanup = () => {
    stopping ??= options.stop();
    return stopping;
  };
  process.once('SIGINT', () => {
    options.log('interrupted: stopping the child processes');
    void cleanup().finally(() => process.exit(130));
  });
  const watchdog = setTimeout(() => {
    options.log(`did not finish within ${options.deadlineMs / 1000} s: stopping`);
    void cleanup().finally(() => process.exit(1));
  }, options.deadlineMs);
  watchdog.unref();
  return { cleanup, disarm: () => clearTimeout(watchdog) };
}

/** One line naming the machine a result was measured on. */
export function describeMachine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  return `machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, load average ${load}`;
}

/** The commit and branch measured, and whether src/ differs from it (the build is made from the working tree). */
export function describeSource(checkout: URL): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: fileURLToPath(checkout), encoding: 'utf8', timeout: 10_000 }).trim();
  try {
    const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return (
      `source: commit ${git('rev-parse', '--short', 'HEAD')} on ${git('rev-parse', '--abbrev-ref', 'HEAD')}` +
      `${changed > 0 ? `, ${changed} file(s) under src/ changed since` : ''}`
    );
  } catch {
    return 'source: not a git checkout';
  }
}
