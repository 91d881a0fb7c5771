/** A pause that `wake` ends early: the indexer sleeps between polls, and a new head or a waiter wakes it. */
export interface WakeableSleep {
  sleep(ms: number): Promise<void>;
  /** Ends the sleep in progress now; nothing when none is. */
  wake(): void;
}

export function createWakeableSleep(): WakeableSleep {
  let wake: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      }),
    wake: () => wake?.(),
  };
}
