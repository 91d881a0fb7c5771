import type { FinalityModel } from '../config/network-presets.ts';

/** The `finalized` and `safe` block numbers the network's nodes reported (absent: none did). */
export interface ReportedFinality {
  readonly finalized?: number;
  readonly safe?: number;
}

/** `finalized`: cannot be reverted; `safe`: unlikely to be (an Ethereum block two thirds of validators attested). */
export type FinalityTag = 'finalized' | 'safe';

/** What decides a network's final block: its config's model and depth. */
export interface FinalitySettings {
  readonly finality: FinalityModel;
  readonly finalityDepth: number;
}

/**
 * The newest block of a network that counts as `tag` (default `finalized`): with `finality: 'tags'`
 * the block its nodes reported; with `'depth'`, or while no node reported the tag, `finalityDepth`
 * below `head`. Undefined while nothing is known. May be negative (no block is final yet).
 *
 * @example finalBlockOf({ finality: 'tags', finalityDepth: 64 }, 1000, { finalized: 936 }) // 936
 */
export function finalBlockOf(
  settings: FinalitySettings,
  head: number | undefined,
  reported: ReportedFinality,
  tag: FinalityTag = 'finalized',
): number | undefined {
  const fromDepth = head === undefined || head < 0 ? undefined : head - settings.finalityDepth;
  if (settings.finality === 'depth') return fromDepth;
  // A node that reports `finalized` but not `safe` (an older client): safe is never below finalized.
  const fromTags = tag === 'safe' ? (reported.safe ?? reported.finalized) : reported.finalized;
  return fromTags ?? fromDepth;
}
