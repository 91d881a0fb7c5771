import type { Logger } from 'pino';
import type { ChainReader } from './chain-reader.ts';
import type { IndexStore, StoredBlock } from './store.ts';

/** A block to wait for: its number, and its hash when the caller knows which block of that height it means. */
export interface BlockTarget {
  number: number;
  hash?: string;
}

interface Waiter extends BlockTarget {
  resolve(): void;
  reject(error: Error): void;
}

/** The callers of `Indexer.waitFor`, each until the store holds its block. */
export interface BlockWaiters {
  readonly size: number;
  /** Resolves once the store holds `target`; rejects after `timeoutMs`. Checked at once. */
  wait(target: BlockTarget, timeoutMs: number): Promise<void>;
  /** Checks the waiters now (after a round). */
  settle(): Promise<void>;
  /** The indexer stopped: a last check, then every waiter left is rejected. */
  stop(): Promise<void>;
}

export function createBlockWaiters(deps: {
  /** The network, as error messages name it. */
  network: string;
  store: Pick<IndexStore, 'hashes'>;
  reader: Pick<ChainReader, 'blockHashes'>;
  /** The indexer's newest block, named when a wait times out. */
  tip: () => StoredBlock | undefined;
  logger: Logger;
}): BlockWaiters {
  const { network } = deps;
  const waiters = new Set<Waiter>();
  let lastCheck: Promise<void> = Promise.resolve();
  let queuedCheck: Promise<void> | undefined;

  /**
   * Resolves the waiters whose block the store holds. It reads through the store, as every reader does,
   * rather than trusting the indexer's tip: a block counts once its transaction is committed and
   * visible, and only with the right hash.
   */
  async function check() {
    const due = [...waiters];
    if (due.length === 0) return;
    const stored = await deps.store.hashes(network, [...new Set(due.map((waiter) => waiter.number))]);
    const unhashed = [...new Set(due.filter((w) => w.hash === undefined && stored.has(w.number)).map((w) => w.number))];
    const canonical = unhashed.length > 0 ? await deps.reader.blockHashes(unhashed) : new Map<number, string>();
    for (const waiter of due) {
      const held = stored.get(waiter.number);
      if (held !== undefined && held === (waiter.hash ?? canonical.get(waiter.number))) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /**
   * Checks the waiters, one check at a time: a call while a check runs queues one more (shared by every
   * call until it starts), which sees every waiter added before it started.
   */
  function settle(): Promise<void> {
    if (!queuedCheck) {
      queuedCheck = lastCheck
        .then(() => {
          queuedCheck = undefined;
          return check();
        })
        .catch((error) =>
          deps.logger.warn({ err: error }, 'could not check the blocks waited for; checking again after the next round'),
        );
      lastCheck = queuedCheck;
    }
    return queuedCheck;
  }

  function wait(target: BlockTarget, timeoutMs: number): Promise<void> {
    const hash = target.hash?.toLowerCase();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        const tip = deps.tip();
        const at = tip ? `${tip.number} (${tip.hash})` : 'none';
        reject(
          new Error(`${network}: block ${formatTarget(waiter)} not indexed within ${timeoutMs} ms (this indexer is at ${at})`),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        number: target.number,
        ...(hash === undefined ? {} : { hash }),
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      waiters.add(waiter);
      void settle();
    });
  }

  return {
    get size() {
      return waiters.size;
    },
    wait,
    settle,
    async stop() {
      // A block committed before the stop still counts; the others will not come from this run.
      await settle();
      for (const waiter of waiters)
        waiter.reject(new Error(`${network}: the indexer stopped before block ${formatTarget(waiter)} was indexed`));
      waiters.clear();
    },
  };
}

function formatTarget(target: BlockTarget): string {
  return target.hash === undefined ? String(target.number) : `${target.number} (${target.hash})`;
}
