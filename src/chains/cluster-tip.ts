import type { ServedTip } from './served-tip.ts';
import type { SharedTipStore } from './shared-tip-store.ts';

/** A network's served tip across the API processes of one deployment (REDIS_URL), or this process's alone. */
export interface ClusterTip {
  /** Whether the processes share a store: `agreed()` then costs one store operation. */
  readonly shared: boolean;
  /**
   * The tip to answer with: this process's served tip, published first when it is the higher one, then
   * raised to the highest any process served. Without a store, or while it fails: the local tip (a number
   * at once, no promise, when there is no store). -1 while no head is known.
   */
  agreed(): Promise<number> | number;
}

export function createClusterTip(local: ServedTip, store: SharedTipStore | undefined, network: string): ClusterTip {
  if (store === undefined) return { shared: false, agreed: () => local.value };
  return {
    shared: true,
    agreed() {
      const tip = local.value;
      return tip < 0 ? tip : store.raise(network, tip);
    },
  };
}

const blockNumberResult = /"result"\s*:\s*"0x([0-9a-fA-F]{1,13})"/;

/**
 * An `eth_blockNumber` answer raised to `block` when it says less (another process served `block`
 * already); any other answer (an error, a higher number) unchanged.
 *
 * @example blockNumberAtLeast('{"jsonrpc":"2.0","id":1,"result":"0x10"}', 18) // '{"jsonrpc":"2.0","id":1,"result":"0x12"}'
 */
export function blockNumberAtLeast(text: string, block: number): string {
  const match = blockNumberResult.exec(text);
  if (match === null || Number.parseInt(match[1]!, 16) >= block) return text;
  return `${text.slice(0, match.index)}"result":"0x${block.toString(16)}"${text.slice(match.index + match[0].length)}`;
}
