/**
 * The recent canonical chain as the head stream reported it, and how a new head changes it: which
 * blocks it drops (a reorg) and which it adds (itself, plus any parents missed during a gap or on
 * the new branch). Pure apart from the injected `fetchByHash` and clock.
 *
 * Heads never go back: a head below the tip comes from a node that is behind (a lagging upstream the
 * feed moved to, a load balancer's other node), whatever its hash, and changes nothing. A reorg is
 * declared only by a head at or above the tip whose ancestry leaves the window's chain.
 */

import type { TransactionLike } from './mined-transactions.ts';

/** The header fields the window relies on; the rest passes through to clients untouched. */
export interface Header {
  number: string;
  hash: string;
  parentHash: string;
  [field: string]: unknown;
}

export interface WindowBlock {
  readonly header: Header;
  /** The block's logs, once fetched (only while someone subscribes to logs). */
  logs?: readonly Record<string, unknown>[];
  /** The block's transactions as objects, once fetched (only while someone subscribes to mined transactions). */
  transactions?: readonly TransactionLike[];
}

export interface HeadChange {
  /** Blocks no longer canonical, lowest first. */
  readonly dropped: readonly WindowBlock[];
  /** New canonical blocks, lowest first (the new head last). */
  readonly added: readonly WindowBlock[];
}

export interface ChainWindow {
  readonly tip: WindowBlock | undefined;
  /** Applies a new head; unknown parents are fetched by hash, at most `depth` of them. */
  advance(head: Header, fetchByHash: (hash: string) => Promise<Header | undefined>): Promise<HeadChange>;
}

export interface ChainWindowOptions {
  /**
   * Heads of other hashes only below the tip for this long mean the chain started over (a devnet
   * reset): the window restarts from the next one. Default 30 s, as the served tip's reset.
   */
  restartBelowAfterMs?: number;
  now?: () => number;
}

const none: HeadChange = { dropped: [], added: [] };
const defaultRestartBelowAfterMs = 30_000;

/** A window of the last `depth` blocks: reorgs deeper than that are reported from the new head on only. */
export function createChainWindow(depth: number, options: ChainWindowOptions = {}): ChainWindow {
  const { restartBelowAfterMs = defaultRestartBelowAfterMs, now = Date.now } = options;
  const byNumber = new Map<number, WindowBlock>();
  let tipNumber: number | undefined;
  let belowSince: number | undefined;

  const restart = (head: Header): HeadChange => {
    belowSince = undefined;
    byNumber.clear();
    const block: WindowBlock = { header: head };
    byNumber.set(Number(head.number), block);
    tipNumber = Number(head.number);
    return { dropped: [], added: [block] };
  };

  return {
    get tip() {
      return tipNumber === undefined ? undefined : byNumber.get(tipNumber);
    },

    async advance(head, fetchByHash) {
      const headNumber = Number(head.number);
      if (tipNumber === undefined || headNumber - tipNumber > depth) return restart(head);
      const known = byNumber.get(headNumber)?.header.hash === head.hash;
      if (headNumber < tipNumber) {
        // Already delivered, or a node behind: neither is news. Only a long run of unknown lower heads is.
        if (known) return none;
        belowSince ??= now();
        return now() - belowSince >= restartBelowAfterMs ? restart(head) : none;
      }
      belowSince = undefined;
      if (known) return none;
      // Walk back from the head until a parent is the window's block at that height.
      const branch: Header[] = [head];
      for (;;) {
        const lowest = branch[0]!;
        const parentNumber = Number(lowest.number) - 1;
        if (byNumber.get(parentNumber)?.header.hash === lowest.parentHash) break;
        if (branch.length > depth || parentNumber < tipNumber - depth) return restart(head);
        const parent = await fetchByHash(lowest.parentHash);
        if (!parent || Number(parent.number) !== parentNumber) return restart(head);
        branch.unshift(parent);
      }
      const forkNumber = Number(branch[0]!.number);
      const dropped: WindowBlock[] = [];
      for (let n = forkNumber; n <= tipNumber; n++) {
        const block = byNumber.get(n);
        if (block) dropped.push(block);
        byNumber.delete(n);
      }
      const added = branch.map((header): WindowBlock => ({ header }));
      for (const block of added) byNumber.set(Number(block.header.number), block);
      tipNumber = headNumber;
      for (const n of byNumber.keys()) if (n <= tipNumber - depth) byNumber.delete(n);
      return { dropped, added };
    },
  };
}
