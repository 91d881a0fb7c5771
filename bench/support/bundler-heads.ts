// When each block appeared on anvil, as this process saw it: eth_blockNumber polled every few ms (on
// loopback, well under a millisecond each). Tells how long before the next block an op was sent, and
// how long after its block the bundler's receipt became visible.
import { anvilCall } from './anvil-rpc.ts';

export interface HeadPoller {
  /** performance.now() when each block number was first seen. */
  readonly arrivals: ReadonlyMap<bigint, number>;
  /** Poll errors (a few are harmless; many mean the times are not to be trusted). */
  readonly errors: number;
  stop(): Promise<void>;
}

export function pollHeads(anvilUrl: string, intervalMs = 5): HeadPoller {
  const arrivals = new Map<bigint, number>();
  let errors = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const head = BigInt((await anvilCall(anvilUrl, 'eth_blockNumber')) as string);
        if (!arrivals.has(head)) arrivals.set(head, performance.now());
      } catch {
        errors++;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    arrivals,
    get errors() {
      return errors;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
