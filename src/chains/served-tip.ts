/**
 * The newest block this process has told anyone about, per network: it never goes back, so no client
 * sees the chain shrink when it is answered by a node a block or two behind the one before.
 */
export interface ServedTip {
  /** -1 until a head is known. */
  readonly value: number;
  /** Raises the tip to `block` if higher; true when it moved. */
  advance(block: number): boolean;
  /** Called after every move, with the new tip. Returns the function that stops it. */
  onAdvance(listener: (block: number) => void): () => void;
  /** Every upstream stayed below the tip for long (a devnet started over): the tip starts again at `block`. */
  reset(block: number): void;
}

export function createServedTip(): ServedTip {
  let value = -1;
  const listeners = new Set<(block: number) => void>();
  const moved = () => {
    for (const listener of listeners) listener(value);
  };
  return {
    get value() {
      return value;
    },
    advance(block) {
      if (!(block > value)) return false;
      value = block;
      moved();
      return true;
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset(block) {
      value = block;
      moved();
    },
  };
}
