import { fileURLToPath } from 'node:url';
import { largestProfile, summarizeProfile } from './cpu-profile.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Prints the Blockyard process's top self-time functions (node --cpu-prof) within a monotonic window:
 * the first 15, or BENCH_PROFILE_TOP.
 */
export function printProfile(
  dir: string,
  window: { fromUs: number; toUs: number },
  log: (line: string) => void,
  label = 'the load',
): void {
  const file = largestProfile(dir);
  if (!file) {
    log(`no .cpuprofile in ${dir}`);
    return;
  }
  const top = Number(process.env.BENCH_PROFILE_TOP ?? 15);
  const summary = summarizeProfile(file, root, window, Number.isInteger(top) && top > 0 ? top : 15);
  console.log('');
  console.log(`blockyard CPU profile: ${file}`);
  console.log(
    `top self time ${summary.windowed ? `during ${label}` : 'over the whole process life'} (${summary.totalMs.toFixed(0)} ms sampled):`,
  );
  console.log(
    `  by origin: ${summary.byOrigin
      .slice(0, 10)
      .map((entry) => `${entry.origin} ${(entry.share * 100).toFixed(1)}%`)
      .join(', ')}`,
  );
  for (const entry of summary.top) {
    console.log(
      `  ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(6)} ms  ${entry.name}  ${entry.location}`,
    );
  }
}
