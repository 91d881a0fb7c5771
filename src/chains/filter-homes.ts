import { memberText } from '../jsonrpc/raw-answer.ts';

/**
 * Which upstream holds each filter installed through the pool (`eth_newFilter`, `eth_newBlockFilter`,
 * `eth_newPendingTransactionFilter`). A filter lives on the node that created it: another node answers
 * "filter not found", so its later calls (`eth_getFilterChanges`, `eth_getFilterLogs`,
 * `eth_uninstallFilter`) go to that node only. Kept in this process, the newest `max` of them, each
 * forgotten after `idleMs` unused (nodes drop a filter not polled for 5 minutes).
 */
export interface FilterHomes<U> {
  /** Records the node that answered a filter-creating call, from its answer's `result`. */
  learn(answer: string, upstream: U): void;
  /** The node holding filter `id`, if this process created it and it was used lately. */
  homeOf(id: string): U | undefined;
  forget(id: string): void;
  readonly size: number;
}

const filterIdPattern = /^"(0x[0-9a-fA-F]{1,64})"$/;

export function createFilterHomes<U>(options: { max: number; idleMs: number; now?: () => number }): FilterHomes<U> {
  const now = options.now ?? Date.now;
  // Insertion order is use order: a use moves an entry to the end, so the first one is the least recently used.
  const homes = new Map<string, { upstream: U; usedAt: number }>();
  const dropIdle = (at: number) => {
    for (const [id, home] of homes) {
      if (at - home.usedAt <= options.idleMs && homes.size <= options.max) break;
      homes.delete(id);
    }
  };
  return {
    learn(answer, upstream) {
      const id = filterIdPattern.exec(memberText(answer, 'result') ?? '')?.[1]?.toLowerCase();
      if (id === undefined) return;
      const at = now();
      homes.delete(id);
      homes.set(id, { upstream, usedAt: at });
      dropIdle(at);
    },
    homeOf(id) {
      const key = id.toLowerCase();
      const home = homes.get(key);
      if (home === undefined) return undefined;
      const at = now();
      if (at - home.usedAt > options.idleMs) {
        homes.delete(key);
        return undefined;
      }
      homes.delete(key);
      homes.set(key, { upstream: home.upstream, usedAt: at });
      return home.upstream;
    },
    forget: (id) => void homes.delete(id.toLowerCase()),
    get size() {
      return homes.size;
    },
  };
}
