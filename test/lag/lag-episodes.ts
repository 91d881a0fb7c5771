import type { ProviderSim } from '../support/provider-sim.ts';

/** How the lagging upstream lags in one episode: its head N blocks back, or a load balancer alternating. */
export type LagMode = { readonly lagBlocks: 1 | 2 } | { readonly alternate: 1 | 2 };

export interface LagEpisodesOptions {
  /** How long an episode lasts, and the synced pause after it (ms, each drawn between the two bounds). */
  lagMs: readonly [number, number];
  syncedMs: readonly [number, number];
  /** Which modes the episodes draw from. */
  modes: readonly LagMode[];
  /** Seed of the draws, so a failing run can be replayed. */
  seed: number;
}

export interface LagEpisodes {
  /** Episodes started so far, by mode name. */
  readonly started: ReadonlyMap<string, number>;
  /** Ends the current episode and leaves the upstream synced. */
  stop(): Promise<void>;
}

export const allLagModes: readonly LagMode[] = [{ lagBlocks: 1 }, { lagBlocks: 2 }, { alternate: 1 }, { alternate: 2 }];

export function lagModeName(mode: LagMode): string {
  return 'lagBlocks' in mode ? `behind by ${mode.lagBlocks}` : `alternating, one node behind by ${mode.alternate}`;
}

/** Makes `sim` lag in episodes until stopped: lagging for a while, then synced for a while, and again. */
export function runLagEpisodes(sim: ProviderSim, options: LagEpisodesOptions): LagEpisodes {
  const random = seededRandom(options.seed);
  const between = ([low, high]: readonly [number, number]) => low + Math.floor(random() * (high - low + 1));
  const started = new Map<string, number>();
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const running = (async () => {
    while (!stopped) {
      const mode = options.modes[Math.floor(random() * options.modes.length)]!;
      started.set(lagModeName(mode), (started.get(lagModeName(mode)) ?? 0) + 1);
      sim.set('lagBlocks' in mode ? { lagBlocks: mode.lagBlocks } : { alternate: { lagBlocks: mode.alternate } });
      await pause(between(options.lagMs));
      sim.set({ lagBlocks: 0, alternate: undefined });
      if (!stopped) await pause(between(options.syncedMs));
    }
  })();
  return {
    started,
    async stop() {
      stopped = true;
      wake?.();
      await running;
      sim.set({ lagBlocks: 0, alternate: undefined });
    },
  };
}

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
