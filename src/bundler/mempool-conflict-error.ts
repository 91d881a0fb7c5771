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
  const [rule, detail] =
    conflict.factory === self || conflict.paymaster === self
      ? ['STO-040', `this sender is the ${conflict.factory === self ? 'factory' : 'paymaster'} of another pending operation`]
      : ours.includes(other)
        ? [
            'STO-040',
            `its ${other === entities.factory ? 'factory' : 'paymaster'} ${other} is the sender of another pending operation`,
          ]
        : ['STO-041', `its validation touches the storage of ${other}, the sender of another pending operation`];
  return new BundlerRpcError(bundlerErrorCodes.bannedOpcode, `ERC-7562 ${rule}: ${detail}; send it once that one has landed`, {
    rule,
  });
}
