import { constants } from 'node:os';
import { loadConfig } from '../config/load.ts';
import { limitHeapGrowth } from '../service/heap-growth.ts';
import { startService } from '../service/start-service.ts';
import { formatBanner } from './banner.ts';
import { parseStartFlags } from './flags.ts';

/**
 * What the cleanups after the HTTP drain (devnet state dump, indexers, database) may take before the
 * process exits anyway: the devnet alone may take 5 s to dump its state, 5 more to be killed.
 */
const cleanupAllowanceMs = 15_000;

/**
 * `blockyard start`: runs until SIGTERM or SIGINT, then drains (requests in flight get the grace
 * period) and stops everything. A second signal exits at once.
 */
export async function runStart(args: string[]): Promise<number> {
  limitHeapGrowth();
  const config = loadConfig({ flags: parseStartFlags(args) });
  const service = await startService(config);
  process.stdout.write(formatBanner(service));
  for (const reason of service.notReady) process.stderr.write(`blockyard: not ready: ${reason}\n`);
  const { logger, shutdown } = service.ctx;

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // The operator will not wait. 'exit' handlers still run: the devnet's kills anvil.
      logger.warn({ signal, pending: shutdown.pending }, 'second signal: exiting without waiting for the shutdown');
      process.exit(128 + constants.signals[signal]);
    }
    stopping = true;
    setTimeout(
      () => {
        logger.error({ pending: shutdown.pending }, 'the shutdown did not finish in time: exiting without waiting');
        process.exit(1);
      },
      config.shutdownGraceS * 1000 + cleanupAllowanceMs,
    ).unref();
    service.stop(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // If the devnet dies the service keeps answering, but /healthz says so (see the devnet module's log line).
  return 0;
}
