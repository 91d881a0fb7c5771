import type { Logger } from 'pino';

type Cleanup = () => Promise<void> | void;

/**
 * One registry for every resource's cleanup. Cleanups run in reverse order of registration, so what
 * was opened last (the HTTP server) closes first and what it depends on (database, devnet) closes after.
 */
export interface Shutdown {
  readonly signal: AbortSignal;
  readonly isShuttingDown: boolean;
  /** The cleanup under way, if any: what a shutdown that takes too long is waiting for. */
  readonly pending: string | undefined;
  add(name: string, cleanup: Cleanup): void;
  run(reason: string): Promise<void>;
}

export function createShutdown(logger?: Logger): Shutdown {
  const controller = new AbortController();
  const cleanups: { name: string; cleanup: Cleanup }[] = [];
  let running: Promise<void> | undefined;
  let pending: string | undefined;

  return {
    signal: controller.signal,
    get isShuttingDown() {
      return controller.signal.aborted;
    },
    get pending() {
      return pending;
    },
    add(name, cleanup) {
      cleanups.push({ name, cleanup });
    },
    run(reason) {
      running ??= (async () => {
        controller.abort(reason);
        logger?.info({ reason }, 'shutting down');
        for (const { name, cleanup } of cleanups.reverse()) {
          pending = name;
          try {
            await cleanup();
          } catch (error) {
            logger?.error({ err: error, resource: name }, 'cleanup failed');
          }
        }
        pending = undefined;
      })();
      return running;
    },
  };
}
