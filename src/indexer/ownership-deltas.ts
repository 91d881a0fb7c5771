import type { NftStandard } from '../db/tables/chain-index.ts';
import { zeroAddress } from './decode-block.ts';

export interface OwnershipDelta {
  contract: string;
  tokenId: bigint;
  owner: string;
  standard: NftStandard;
  amount: bigint;
  /** The newest block among these transfers that brought units to the owner (null when none did, or undoing). */
  acquiredBlock: number | null;
}

interface Movement {
  contract: string;
  standard: NftStandard;
  from: string;
  to: string;
  tokenId: bigint;
  amount: bigint;
  /** The transfer's block (omitted when undoing). */
  block?: number;
}

/**
 * Net change of each (contract, token, owner) over these transfers; `direction` -1 undoes them (a reorg).
 * Mints have no sender and burns no receiver to count. Zero nets are dropped, unless units arrived.
 */
export function ownershipDeltas(transfers: readonly Movement[], direction: 1 | -1 = 1): OwnershipDelta[] {
  const byKey = new Map<string, OwnershipDelta>();
  const add = (transfer: Movement, owner: string, amount: bigint, acquired: number | null) => {
    if (owner === zeroAddress || amount === 0n) return;
    const key = `${transfer.contract}:${transfer.tokenId}:${owner}`;
    const found = byKey.get(key);
    if (found) {
      found.amount += amount;
      if (acquired !== null && (found.acquiredBlock === null || acquired > found.acquiredBlock)) found.acquiredBlock = acquired;
    } else {
      const { contract, tokenId, standard } = transfer;
      byKey.set(key, { contract, tokenId, owner, standard, amount, acquiredBlock: acquired });
    }
  };
  for (const transfer of transfers) {
    const amount = transfer.amount * BigInt(direction);
    add(transfer, transfer.from, -amount, null);
    add(transfer, transfer.to, amount, direction === 1 ? (transfer.block ?? null) : null);
  }
  // A net zero still moves the newest acquisition of a holder who received units and sent as many.
  return [...byKey.values()].filter((delta) => delta.amount !== 0n || delta.acquiredBlock !== null);
}
