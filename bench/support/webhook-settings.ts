import { wholeNumber } from './settings.ts';

/** Webhook benchmark knobs from the environment, with defaults and bounds. */
export interface WebhookBenchSettings {
  /** new_block deliveries measured for latency (BENCH_WEBHOOK_BLOCKS); the devnet mines one a second. */
  blocks: number;
  /** Deliveries queued while paused and then delivered for throughput (BENCH_WEBHOOK_DELIVERIES). */
  deliveries: number;
  /** token_transfer webhooks they are split over (BENCH_WEBHOOK_HOOKS). */
  hooks: number;
  /** Requests in flight in the bare undici loop (BENCH_WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Profile the Blockyard process with node --cpu-prof (BENCH_CPU_PROF=1). */
  cpuProfile: boolean;
  /** Run Blockyard on this Postgres instead of the embedded one (BENCH_DATABASE_URL). */
  databaseUrl?: string;
  /**
   * The postmaster's pid of that Postgres when it runs on this machine (BENCH_DATABASE_PID, e.g. the
   * first line of its postmaster.pid): its CPU is counted like the embedded one's.
   */
  databasePid?: number;
}

export function readWebhookBenchSettings(env: Record<string, string | undefined> = process.env): WebhookBenchSettings {
  return {
    blocks: wholeNumber(env, 'BENCH_WEBHOOK_BLOCKS', 60, 5, 600),
    deliveries: wholeNumber(env, 'BENCH_WEBHOOK_DELIVERIES', 20_000, 1_000, 200_000),
    hooks: wholeNumber(env, 'BENCH_WEBHOOK_HOOKS', 10, 1, 50),
    concurrency: wholeNumber(env, 'BENCH_WEBHOOK_CONCURRENCY', 16, 1, 256),
    cpuProfile: env.BENCH_CPU_PROF === '1',
    ...(env.BENCH_DATABASE_URL ? { databaseUrl: env.BENCH_DATABASE_URL } : {}),
    ...(env.BENCH_DATABASE_PID ? { databasePid: wholeNumber(env, 'BENCH_DATABASE_PID', 0, 2, 4_194_304) } : {}),
  };
}
