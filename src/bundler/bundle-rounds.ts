import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleClaims } from './bundle-claims.ts';
import type { Executor } from './bundle-executors.ts';
import { shortMessage } from './simulation.ts';

export interface BundleRoundDeps {
  executors: readonly Executor[];
  claims: BundleClaims;
  /** The next bundle's ops (bundle-batch.ts selectBatch). */
  loadBatch: () => Promise<UserOperationRow[]>;
  /** One bundle from one executor (send-bundle.ts sendBundle). */
  bundleWith: (executor: Executor, rows: UserOperationRow[]) => Promise<Hex | undefined>;
  /** Settles bundles sent but not settled (bundle-settlement.ts). */
  resumeSubmitted: () => Promise<void>;
  /** Drops waiting ops that no longer validate (mempool-revalidation.ts). */
  revalidate: () => Promise<void>;
  /** Whether this process bundles now (holds the lease, not closed). */
  isBundling: () => boolean;
  logger: Logger;
  name: string;
}

/**
 * The bundle loop's rounds: each starts a bundle on every free executor while ops wait, then checks
 * the waiting ops again; a bundle, when done, starts another round. In `manual` mode (ERC-7769
 * debug_bundler_setBundlingMode) only `bundleNow` bundles.
 */
export function createBundleRounds(deps: BundleRoundDeps) {
  const { executors, logger, name } = deps;
  let running = false;
  let again = false;
  let mode: 'auto' | 'manual' = 'auto';
  let bundlesInFlight = 0;
  let lastBundle: Hex | undefined;

  /** Starts a bundle on each free executor while ops are waiting; each bundle, when done, looks again. */
  function run() {
    if (!deps.isBundling()) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    (async () => {
      do {
        again = false;
        // A bundle whose receipt was not recorded (an error after sending, a restart) is settled first.
        // The mode is read at each step: debug_bundler_setBundlingMode('manual') stops bundling at once.
        if (mode === 'auto') await deps.resumeSubmitted();
        for (const executor of executors) {
          if (!deps.isBundling() || executor.busy || mode !== 'auto') continue;
          const rows = await deps.loadBatch();
          if (rows.length === 0) break;
          void startBundle(executor, rows);
        }
        // After the bundles are on their way: it must not delay them.
        await deps.revalidate();
      } while (again && deps.isBundling());
    })()
      .catch((error: unknown) =>
        logger.warn({ err: error, network: name, reason: shortMessage(error) }, 'bundling round failed; retried'),
      )
      .finally(() => {
        running = false;
      });
  }

  function startBundle(executor: Executor, rows: UserOperationRow[]): Promise<unknown> {
    bundlesInFlight++;
    return occupy(deps, executor, rows)
      .catch((error: unknown) =>
        logger.warn({ err: error, network: name, reason: shortMessage(error) }, 'bundle failed; its ops are tried again'),
      )
      .finally(() => {
        bundlesInFlight--;
        // More may be waiting: bundle again at once.
        if (mode === 'auto') run();
      });
  }

  /** Resolves once no round runs and no bundle is in flight. */
  async function idle() {
    while (running || bundlesInFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Once idle, one bundle of what is pending, on the first executor; its transaction's hash, or undefined when none was sent. */
  async function bundleNow(): Promise<Hex | undefined> {
    await idle();
    const before = lastBundle;
    running = true;
    try {
      await deps.resumeSubmitted();
      const rows = await deps.loadBatch();
      if (rows.length > 0) await occupy(deps, executors[0]!, rows);
    } finally {
      running = false;
    }
    return lastBundle === before ? undefined : lastBundle;
  }

  return {
    run,
    idle,
    bundleNow,
    setMode(next: 'auto' | 'manual') {
      mode = next;
    },
    /** A bundle transaction went out (bundleNow answers the last one). */
    sent(txHash: Hex) {
      lastBundle = txHash;
    },
    /** Counts a bundle started outside the rounds (bundle-alone.ts) among those `idle` waits for. */
    inFlight(change: 1 | -1) {
      bundlesInFlight += change;
    },
  };
}

/** One bundle of the rows on the executor, which is busy and holds them until it ends. */
async function occupy(
  deps: Pick<BundleRoundDeps, 'claims' | 'bundleWith'>,
  executor: Executor,
  rows: UserOperationRow[],
): Promise<Hex | undefined> {
  executor.busy = true;
  const release = deps.claims.claim(rows);
  try {
    return await deps.bundleWith(executor, rows);
  } finally {
    release();
    executor.busy = false;
  }
}
