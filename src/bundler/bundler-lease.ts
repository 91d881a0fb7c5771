import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { acquireIndexerLease, type IndexerLease } from '../indexer/leader-lease.ts';

/** Pause before asking again for a lease that was lost. */
const leaseRetryMs = 1_000;

/**
 * Follows the network's bundler lease (one active process per network, as the indexer's): `onHeld`
 * once it is held, `onEnded` when it is lost or released, then asks again until `isClosed`.
 * `release` gives up the current lease; `following` ends once closed.
 */
export function followBundlerLease(deps: {
  databaseUrl: string;
  registry: Registry;
  name: string;
  logger: Logger;
  isClosed: () => boolean;
  onHeld: () => Promise<void>;
  /** The lease is over; `held`: it had been held (a loss, or the release at close). */
  onEnded: (held: boolean) => void;
}): { following: Promise<void>; release(): Promise<void> } {
  let lease: IndexerLease | undefined;
  async function follow() {
    while (!deps.isClosed()) {
      const current = acquireIndexerLease({ url: deps.databaseUrl, registry: deps.registry }, deps.name, deps.logger, 'bundler');
      lease = current;
      const held = await Promise.race([current.acquired.then(() => true), current.ended.then(() => false)]);
      if (held && !deps.isClosed()) await deps.onHeld();
      await current.ended;
      deps.onEnded(held);
      if (!deps.isClosed()) await new Promise((resolve) => setTimeout(resolve, leaseRetryMs));
    }
  }
  const following = follow();
  return {
    following,
    release: async () => {
      await lease?.release();
    },
  };
}
