import { type BenchSettings, readBenchSettings, wholeNumber } from './settings.ts';

/** Indexer benchmark knobs from the environment, with defaults and bounds. */
export interface IndexerBenchSettings {
  /** ERC-20 transfers made on the devnet before the backfill (BENCH_INDEXER_TRANSFERS). */
  transfers: number;
  /** Distinct addresses the transfers go between (BENCH_INDEXER_RECIPIENTS). */
  recipients: number;
  /** Transfers per transaction (BENCH_INDEXER_PER_TX); a block holds one transaction (automine). */
  perTransaction: number;
  /** Tokens the balances holder gets, one DemoToken each (BENCH_INDEXER_TOKENS). */
  heldTokens: number;
  /** Seconds of one-connection requests per balances row (BENCH_DURATION) and of warm-up (BENCH_WARMUP). */
  durationS: number;
  warmupS: number;
  cpuProfile: boolean;
  databaseUrl?: string;
}

export function readIndexerBenchSettings(env: Record<string, string | undefined> = process.env): IndexerBenchSettings {
  const common: BenchSettings = readBenchSettings(env);
  return {
    transfers: wholeNumber(env, 'BENCH_INDEXER_TRANSFERS', 100_000, 1_000, 1_000_000),
    recipients: wholeNumber(env, 'BENCH_INDEXER_RECIPIENTS', 2_000, 2, 20_000),
    // 400 moves cost ~6M gas and 400 first-time mints ~10M: both well under anvil's 30M block gas limit.
    perTransaction: wholeNumber(env, 'BENCH_INDEXER_PER_TX', 400, 1, 800),
    heldTokens: wholeNumber(env, 'BENCH_INDEXER_TOKENS', 100, 1, 100),
    durationS: common.durationS,
    warmupS: common.warmupS,
    cpuProfile: common.cpuProfile,
    ...(common.databaseUrl ? { databaseUrl: common.databaseUrl } : {}),
  };
}
