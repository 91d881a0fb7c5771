/** Benchmark knobs from the environment, with defaults and bounds. */
export interface BenchSettings {
  /** Seconds of measured load at 50 connections (BENCH_DURATION). */
  durationS: number;
  /** Seconds of discarded load before it (BENCH_WARMUP). */
  warmupS: number;
  /** Seconds at one connection (BENCH_LATENCY_DURATION). */
  latencyDurationS: number;
  connections: number;
  /** Profile the Blockyard process with node --cpu-prof (BENCH_CPU_PROF=1). */
  cpuProfile: boolean;
  /** Run Blockyard on this Postgres instead of the embedded Postgres (BENCH_DATABASE_URL). */
  databaseUrl?: string;
}

export function readBenchSettings(env: Record<string, string | undefined> = process.env): BenchSettings {
  return {
    durationS: seconds(env, 'BENCH_DURATION', 8),
    warmupS: seconds(env, 'BENCH_WARMUP', 2),
    latencyDurationS: seconds(env, 'BENCH_LATENCY_DURATION', 5),
    connections: 50,
    cpuProfile: env.BENCH_CPU_PROF === '1',
    ...(env.BENCH_DATABASE_URL ? { databaseUrl: env.BENCH_DATABASE_URL } : {}),
  };
}

function seconds(env: Record<string, string | undefined>, name: string, fallback: number): number {
  return wholeNumber(env, name, fallback, 1, 120);
}

/** A whole-number knob from the environment: `fallback` when unset, an error naming it when out of range. */
export function wholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number, ${min}-${max}`);
  return value;
}
