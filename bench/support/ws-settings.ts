import { wholeNumber } from './settings.ts';

/** WebSocket benchmark knobs from the environment, with defaults and bounds. */
export interface WsBenchSettings {
  /** Subscribed clients (BENCH_WS_CLIENTS). */
  clients: number;
  /** Load-generator processes the clients are split over (BENCH_WS_PROCESSES). */
  processes: number;
  /** Blocks mined in the measured window (BENCH_WS_BLOCKS). */
  blocks: number;
  /** Milliseconds between evm_mine calls (BENCH_WS_INTERVAL_MS). */
  intervalMs: number;
  /**
   * Rounds (BENCH_WS_ROUNDS): each measures the baseline and Blockyard once, in alternating order
   * (baseline first in odd rounds), so a change in the machine's load weighs on both alike.
   */
  rounds: number;
  /**
   * Percent of the clients subscribed to `logs` (of one contract) instead of newHeads (BENCH_WS_LOGS):
   * each block is then a transaction to that contract, which emits one log.
   */
  logsPercent: number;
  /** Busy-loop processes competing for the cores during the run (BENCH_WS_BUSY): a loaded machine on demand. */
  busy: number;
  /** Profile the Blockyard process with node --cpu-prof (BENCH_CPU_PROF=1). */
  cpuProfile: boolean;
  /** Run Blockyard on this Postgres instead of the embedded Postgres (BENCH_DATABASE_URL). */
  databaseUrl?: string;
}

export function readWsBenchSettings(env: Record<string, string | undefined> = process.env): WsBenchSettings {
  return {
    clients: wholeNumber(env, 'BENCH_WS_CLIENTS', 1_000, 1, 5_000),
    processes: wholeNumber(env, 'BENCH_WS_PROCESSES', 2, 1, 4),
    blocks: wholeNumber(env, 'BENCH_WS_BLOCKS', 30, 1, 300),
    intervalMs: wholeNumber(env, 'BENCH_WS_INTERVAL_MS', 250, 100, 5_000),
    rounds: wholeNumber(env, 'BENCH_WS_ROUNDS', 2, 1, 10),
    logsPercent: wholeNumber(env, 'BENCH_WS_LOGS', 0, 0, 100),
    busy: wholeNumber(env, 'BENCH_WS_BUSY', 0, 0, 8),
    cpuProfile: env.BENCH_CPU_PROF === '1',
    ...(env.BENCH_DATABASE_URL ? { databaseUrl: env.BENCH_DATABASE_URL } : {}),
  };
}
