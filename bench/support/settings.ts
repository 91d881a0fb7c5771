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
  /** Run Blockyard on this Postgres instead of the embedded PGlite (BENCH_DATABASE_URL). */
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
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 120) throw new Error(`${name} must be a whole number of seconds, 1-120`);
  return value;
}
