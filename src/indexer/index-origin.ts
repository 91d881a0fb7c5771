import type { Logger } from 'pino';
import type { BackfillStore } from './backfill-store.ts';

/** The backfill command a log line or a message tells the operator to run. */
export function backfillCommand(network: string, from: number, to: number): string {
  return `blockyard index backfill --network ${network} --from ${from} --to ${to}`;
}

/**
 * Where the live index of a network starts. The first start remembers it in the database: the
 * configured `start_block`, else the head at that moment (a real chain is never read from genesis
 * unasked), so a restart continues from its tip instead of jumping to a newer head. A `start_block`
 * set below it later changes nothing by itself: one warn line names the backfill that fills the gap.
 */
export async function resolveIndexOrigin(options: {
  network: string;
  configured: number | undefined;
  store: BackfillStore;
  head: () => Promise<number>;
  logger: Logger;
}): Promise<number> {
  const { network, configured, store, logger } = options;
  const remembered = await store.origin(network);
  if (remembered === undefined) {
    const chosen = configured ?? (await options.head());
    const origin = await store.rememberOrigin(network, chosen);
    if (configured === undefined)
      logger.info({ startBlock: origin }, 'index starts at the head of its first start (no start_block set)');
    return origin;
  }
  if (configured !== undefined && configured < remembered) {
    const covered = await store.coveredFrom(network, remembered);
    if (configured < covered) {
      logger.warn(
        { startBlock: configured, indexStartsAt: covered, command: backfillCommand(network, configured, covered - 1) },
        `start_block ${configured} is below where the index starts (${covered}): blocks ${configured} to ${covered - 1} need a backfill: ${backfillCommand(network, configured, covered - 1)}`,
      );
    }
  }
  return remembered;
}
