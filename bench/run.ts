// Runs every benchmark in bench/ (each *.ts file here but this one), one after the other, each in its
// own process so one cannot skew the next. Run: npm run bench
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
/** One benchmark may take this long before it is stopped, unless it is listed below. */
const perBenchmarkMs = 10 * 60_000;
/** Benchmarks that need longer: data-queries seeds and queries 3,000,000 rows (its own guard stops it at 40 min). */
const longerMs: Record<string, number> = { 'data-queries.ts': 45 * 60_000 };
const benchmarks = readdirSync(dir)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && name !== 'run.ts')
  .sort();

let failed = 0;
for (const name of benchmarks) {
  console.log(`\n=== ${name} ===`);
  const code = await runOne(name);
  if (code !== 0) {
    failed++;
    console.error(`${name} failed (exit ${code})`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;

function runOne(name: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(name, import.meta.url))], {
      stdio: 'inherit',
    });
    // Ctrl-C reaches the benchmark too (same process group); it cleans up and exits, and so do we.
    const onSigint = () => {};
    process.on('SIGINT', onSigint);
    const capMs = longerMs[name] ?? perBenchmarkMs;
    const timer = setTimeout(() => {
      console.error(`${name} ran past ${capMs / 60_000} min: stopping it`);
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    }, capMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', onSigint);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
