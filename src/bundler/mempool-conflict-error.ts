import type { MempoolConflict } from './mempool-admission.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/**
 * ERC-7562's STO-040, said for the op refused: an entity may not be another pending op's sender, nor
 * a sender another op's entity. Either would let one op invalidate the other in the same bundle.
 */
export function mempoolConflictError(
  conflict: MempoolConflict,
  sender: string,
  entities: { factory: string | null; paymaster: string | null },
): BundlerRpcError {
  const self = sender.toLowerCase();
  const other = conflict.sender.toLowerCase();
  // The STO-040 wording is the reference bundler's, which the ERC-4337 bundler spec tests look for.
  const detail =
    conflict.factory === self || conflict.paymaster === self
      ? `the sender ${self} is used as a different entity in another UserOperation currently in mempool (the ${conflict.factory === self ? 'factory' : 'paymaster'} of ${other}'s)`
      : `the ${other === entities.factory ? 'factory' : 'paymaster'} ${other} is used as a sender entity in another UserOperation currently in mempool`;
  return new BundlerRpcError(bundlerErrorCodes.bannedOpcode, `ERC-7562 STO-040: ${detail}; send it once that one has landed`, {
    rule: 'STO-040',
  });
}
