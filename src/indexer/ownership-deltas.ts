import type { NftStandard } from '../db/tables/chain-index.ts';
import { zeroAddress } from './decode-block.ts';

export interface OwnershipDelta {
  contract: string;
  tokenId: bigint;
  owner: string;
  standard: NftStandard;
  amount: bigint;
}

interface Movement {
  contract: string;
  standard: NftStandard;
  from: string;
  to: string;
  tokenId: bigint;
  amount: bigint;
}

/**
 * Net change of each (contract, token, owner) over these transfers; `direction` -1 undoes them (a reorg).
 * Mints have no sender and burns no receiver to count. Zero nets are dropped.
 */
export function ownershipDeltas(transfers: readonly Movement[], direction: 1 | -1 = 1): OwnershipDelta[] {
  const byKey = new Map<string, OwnershipDelta>();
  const add = (transfer: Movement, owner: string, amount: bigint) => {
    if (owner === zeroAddress || amount === 0n) return;
    const key = `${transfer.contract}:${transfer.tokenId}:${owner}`;
    const found = byKey.get(key);
    if (found) found.amount += amount;
    else byKey.set(key, { contract: transfer.contract, tokenId: transfer.tokenId, owner, standard: transfer.standard, amount });
  };
  for (const transfer of transfers) {
    const amount = transfer.amount * BigInt(direction);
    add(transfer, transfer.from, -amount);
    add(transfer, transfer.to, amount);
  }
  return [...byKey.values()].filter((delta) => delta.amount !== 0n);
}
