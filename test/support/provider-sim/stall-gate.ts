/** Thrown to requests held by a stall when the simulator closes: they are dropped, never answered. */
export class SimulatorClosedError extends Error {
  constructor() {
    super('provider simulator closed');
  }
}

/** Where every request and notification waits while the node is stalled. */
export interface StallGate {
  /** Resolves at once unless stalled, else when the stall ends; rejects with SimulatorClosedError on close. */
  pass(): Promise<void>;
  setStalled(stalled: boolean): void;
  close(): void;
}

export function createStallGate(stalled: boolean): StallGate {
  let closed = false;
  let held: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const releaseAll = (how: (waiter: (typeof held)[number]) => void) => {
    const waiting = held;
    held = [];
    for (const waiter of waiting) how(waiter);
  };
  return {
    pass() {
      if (closed) return Promise.reject(new SimulatorClosedError());
      if (!stalled) return Promise.resolve();
      return new Promise((resolve, reject) => held.push({ resolve, reject }));
    },
    setStalled(value) {
      stalled = value;
      // Like a process that resumes after SIGCONT: what it accepted while frozen is answered now.
      if (!stalled) releaseAll((waiter) => waiter.resolve());
    },
    close() {
      closed = true;
      releaseAll((waiter) => waiter.reject(new SimulatorClosedError()));
    },
  };
}
