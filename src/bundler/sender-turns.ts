import type { Address } from 'viem';
import type { AnyUserOperation } from './user-operation.ts';

/** How long a send waits for the sends of its sender's lower nonces under way in this process. */
const earlierSendsTimeoutMs = 15_000;
/**
 * How often a send waiting for a missing lower nonce looks at the mempool again (another process may
 * admit it); a send of the key starting or ending here makes it look at once. 50 ms overloaded the
 * database pool with 150 sends waiting.
 */
const gapPollMs = 250;

interface Turn {
  readonly nonce: bigint;
  readonly done: Promise<void>;
}

/**
 * The sends of each sender's nonce key under way in this process. A client that sends consecutive
 * nonces at once (not waiting for each answer) has them taken in nonce order: each waits for the
 * sends of lower nonces on its key to finish, then finds those ops in the mempool and is validated
 * in the state they leave. Keys are `network|entryPoint|sender|nonceKey`.
 */
export function createSenderTurns() {
  const underWay = new Map<string, Set<Turn>>();
  const listeners = new Map<string, Set<() => void>>();

  function notify(key: string) {
    for (const listener of listeners.get(key) ?? []) listener();
  }

  /** Resolves at the next send of the key to start or end, or after `ms`. */
  function change(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = listeners.get(key) ?? new Set();
      listeners.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) listeners.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Waits (bounded) for the sends of lower nonces than `nonce` under way on the key; whether there were any. */
  async function lowerDone(key: string, nonce: bigint): Promise<boolean> {
    const before = [...(underWay.get(key) ?? [])].filter((other) => other.nonce < nonce).map((other) => other.done);
    if (before.length === 0) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(before),
      new Promise((resolve) => {
        timer = setTimeout(resolve, earlierSendsTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return true;
  }

  return {
    /** For an estimate: waits for the sends of lower nonces under way on the key, so it sees them queued. */
    lowerDone,

    /** Registers a send; `leave` must be called when it ends (admitted or refused). */
    enter(key: string, nonce: bigint) {
      let finish = () => {};
      const turn: Turn = { nonce, done: new Promise<void>((resolve) => (finish = resolve)) };
      const turns = underWay.get(key) ?? new Set<Turn>();
      underWay.set(key, turns);
      turns.add(turn);
      notify(key);
      return {
        /** Waits for the sends of lower nonces under way here to end (bounded); whether there were any. */
        earlierDone: () => lowerDone(key, nonce),
        leave() {
          turns.delete(turn);
          if (turns.size === 0) underWay.delete(key);
          finish();
          notify(key);
        },
      };
    },

    /**
     * Waits for a missing lower nonce to arrive: `filled` (a read of the mempool) is asked again
     * whenever a send of the key starts or ends here, and every 250 ms. While a send of a lower nonce
     * is under way here (a busy validation can take seconds) the wait goes on; otherwise it ends
     * `graceMs` after the last one did. True once filled.
     */
    async waitForGap(key: string, nonce: bigint, filled: () => Promise<boolean>, graceMs: number): Promise<boolean> {
      const cap = Date.now() + earlierSendsTimeoutMs;
      let deadline = Date.now() + graceMs;
      for (;;) {
        if (await filled()) return true;
        const before = [...(underWay.get(key) ?? [])].filter((other) => other.nonce < nonce);
        if (before.length > 0 && Date.now() < cap) {
          await Promise.race([Promise.all(before.map((other) => other.done)), change(key, cap - Date.now())]);
          deadline = Date.now() + graceMs;
          continue;
        }
        const left = Math.min(deadline, cap) - Date.now();
        if (left <= 0) return false;
        await change(key, Math.min(left, gapPollMs));
      }
    },
  };
}

export type SenderTurns = ReturnType<typeof createSenderTurns>;

/** The key of an op's turns: its network, EntryPoint, sender and nonce key. */
export const turnKeyOf = (network: string, entryPoint: Address, op: AnyUserOperation): string =>
  `${network}|${entryPoint}|${op.sender.toLowerCase()}|${op.nonce >> 64n}`;
