import type { MempoolConflict } from './mempool-admission.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/**
 * ERC-7562's rules between ops in the mempool, said for the op refused: an entity may not be another
 * pending op's sender, nor a sender another op's entity (STO-040); validation may not touch the
 * storage of another pending op's sender (STO-041). Either would let one op invalidate the other in
 * the same bundle.
 */
export function mempoolConflictError(
  conflict: MempoolConflict,
  sender: string,
  entities: { factory: string | null; paymaster: string | null },
): BundlerRpcError {
  const self = sender.toLowerCase();
  const other = conflict.sender.toLowerCase();
  const ours = [entities.factory, entities.paymaster];
  // The STO-040 wording is the reference bundler's, which the ERC-4337 bundler spec tests look for.
  const [rule, detail] =
    conflict.factory === self || conflict.paymaster === self
      ? [
          'STO-040',
          `the sender ${self} is used as a different entity in another UserOperation currently in mempool (the ${conflict.factory === self ? 'factory' : 'paymaster'} of ${other}'s)`,
        ]
      : ours.includes(other)
        ? [
            'STO-040',
            `the ${other === entities.factory ? 'factory' : 'paymaster'} ${other} is used as a sender entity in another UserOperation currently in mempool`,
          ]
        : ['STO-041', `its validation touches the storage of ${other}, the sender of another pending operation`];
  return new BundlerRpcError(bundlerErrorCodes.bannedOpcode, `ERC-7562 ${rule}: ${detail}; send it once that one has landed`, {
    rule,
  });
}
