import { wholeNumber } from './settings.ts';

/** Bundler benchmark knobs from the environment, with defaults and bounds. */
export interface BundlerBenchSettings {
  /** Measured ops per kind (deploy, plain) and EntryPoint version (v0.7, v0.8) per bundler (BENCH_BUNDLER_OPS). */
  opsPerKind: number;
  /** Unmeasured accounts of each version (one deploy op and one plain op each) per bundler first (BENCH_BUNDLER_WARMUP). */
  warmupAccounts: number;
  /** How often eth_getUserOperationReceipt is asked, in ms (BENCH_BUNDLER_POLL_MS). */
  receiptPollMs: number;
  /** Senders in the queued-op section, per bundler (BENCH_BUNDLER_QUEUED_SENDERS). */
  queuedSenders: number;
  /** Ops with consecutive nonces per sender there (BENCH_BUNDLER_QUEUED_OPS). */
  queuedOpsPerSender: number;
  /** Profile the Blockyard process with node --cpu-prof (BENCH_CPU_PROF=1). */
  cpuProfile: boolean;
  /** Measured calls of each kind in the sponsorship latency loop (BENCH_BUNDLER_SPONSOR_CALLS). */
  sponsorCalls: number;
  /** Measured sponsored ops, half deploying an account and half plain (BENCH_BUNDLER_SPONSORED_OPS, even). */
  sponsoredOps: number;
}

export function readBundlerBenchSettings(env: Record<string, string | undefined> = process.env): BundlerBenchSettings {
  return {
    opsPerKind: wholeNumber(env, 'BENCH_BUNDLER_OPS', 15, 5, 60),
    warmupAccounts: wholeNumber(env, 'BENCH_BUNDLER_WARMUP', 2, 0, 10),
    receiptPollMs: wholeNumber(env, 'BENCH_BUNDLER_POLL_MS', 20, 5, 500),
    queuedSenders: wholeNumber(env, 'BENCH_BUNDLER_QUEUED_SENDERS', 50, 1, 100),
    queuedOpsPerSender: wholeNumber(env, 'BENCH_BUNDLER_QUEUED_OPS', 4, 1, 4),
    cpuProfile: env.BENCH_CPU_PROF === '1',
    sponsorCalls: wholeNumber(env, 'BENCH_BUNDLER_SPONSOR_CALLS', 60, 10, 300),
    sponsoredOps: evenNumber(env, 'BENCH_BUNDLER_SPONSORED_OPS', 30, 4, 60),
  };
}

function evenNumber(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const value = wholeNumber(env, name, fallback, min, max);
  if (value % 2 !== 0) throw new Error(`${name} must be even (half deploy ops, half plain ops)`);
  return value;
}
