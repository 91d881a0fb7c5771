export interface Head {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
}

/**
 * `advanced`: a new head above the last one; `reorg`: the chain we saw was replaced; `behind`: a lower
 * head, from a node that has not caught up (polls go to any node of the pool): it says nothing of ours.
 */
export type HeadChange = 'same' | 'behind' | 'advanced' | 'reorg';

/**
 * Compares two successive heads. A reorg is only a different hash at a height, seen from a node at or
 * above it: another hash at the same height, a block just above whose parent is not the head we saw,
 * or a block just below that is not our head's parent. Any other lower number is a node behind (a
 * lagging upstream, one node of a load balancer), never a reorg.
 */
export function compareHeads(previous: Head | undefined, next: Head): HeadChange {
  if (!previous) return 'advanced';
  if (next.number === previous.number - 1 && previous.parentHash !== '' && next.hash !== previous.parentHash) return 'reorg';
  if (next.number < previous.number) return 'behind';
  if (next.number === previous.number) return next.hash === previous.hash ? 'same' : 'reorg';
  if (next.number === previous.number + 1 && next.parentHash !== previous.hash) return 'reorg';
  return 'advanced';
}

export interface HeadWatch {
  /** The latest head seen, once the first poll has answered. */
  current(): Head | undefined;
  /** Polls now (merged with a poll already under way). */
  refresh(): Promise<void>;
  /** Forgets the head held (the chain was rewound on purpose: a lower head is then the head) and polls. */
  restart(): Promise<void>;
  stop(): void;
}

export interface HeadWatchOptions {
  /** POSTs a JSON-RPC body to the network's upstream and returns its answer's text. */
  send(body: string): Promise<string>;
  intervalMs: number;
  onChange(change: Exclude<HeadChange, 'same' | 'behind'>, head: Head, previous: Head | undefined): void;
}

const latestBlockBody = '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}';

/**
 * Polls the latest block header (number and hash: enough to see a reorg at the head) every
 * `intervalMs`; a failed poll keeps the last head. The timer does not hold the process open.
 */
export function createHeadWatch({ send, intervalMs, onChange }: HeadWatchOptions): HeadWatch {
  let head: Head | undefined;
  let polling: Promise<void> | undefined;
  let stopped = false;

  const poll = async () => {
    try {
      const answer = JSON.parse(await send(latestBlockBody)) as {
        result?: { number?: string; hash?: string; parentHash?: string };
      };
      const block = answer.result;
      if (stopped || !block?.number || !block.hash) return;
      const next: Head = { number: Number.parseInt(block.number, 16), hash: block.hash, parentHash: block.parentHash ?? '' };
      const change = compareHeads(head, next);
      // The head we hold stays: a node behind does not move it back.
      if (change === 'behind') return;
      const previous = head;
      head = next;
      if (change !== 'same') onChange(change, next, previous);
    } catch {
      // An unreachable or odd upstream: keep the last head; the next poll tries again.
    }
  };

  const refresh = () => {
    polling ??= poll().finally(() => {
      polling = undefined;
    });
    return polling;
  };

  const timer = setInterval(() => void refresh(), intervalMs);
  timer.unref();
  void refresh();

  return {
    current: () => head,
    refresh,
    async restart() {
      await polling;
      head = undefined;
      await refresh();
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
