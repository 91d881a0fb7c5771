import type { Logger } from 'pino';

type Cleanup = () => Promise<void> | void;

/**
 * One registry for every resource's cleanup. Cleanups run in reverse order of registration, so what
 * was opened last (the HTTP server) closes first and what it depends on (database, devnet) closes after.
 */
export interface Shutdown {
  readonly signal: AbortSignal;
  readonly isShuttingDown: boolean;
  add(name: string, cleanup: Cleanup): void;
  run(reason: string): Promise<void>;
}

export function createShutdown(logger?: Logger): Shutdown {
  const controller = new AbortController();
  const cleanups: { name: string; cleanup: Cleanup }[] = [];
  let running: Promise<void> | undefined;

  return {
    signal: controller.signal,
    get isShuttingDown() {
      return controller.signal.aborted;
    },
    add(name, cleanup) {
      cleanups.push({ name, cleanup });
    },
    run(reason) {
      running ??= (async () => {
        controller.abort(reason);
        logger?.info({ reason }, 'shutting down');
        for (const { name, cleanup } of cleanups.reverse()) {
          try {
            await cleanup();
          } catch (error) {
            logger?.error({ err: error, resource: name }, 'cleanup failed');
          }
        }
      })();
      return running;
    },
  };
}
