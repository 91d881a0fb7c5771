import type { Address, Hex, PublicClient, SignedAuthorization } from 'viem';
import type { UserOperation } from 'viem/account-abstraction';
import { recoverAuthorizationAddress } from 'viem/utils';
import {
  alreadyDelegated,
  authorizationProblem,
  authorizationRefusal,
  delegateOf,
  invalidAuthorization,
} from './eip7702-authorization.ts';
import { authorizationOf } from './eip7702-delegation.ts';
import { type AnyUserOperation, type EntryPointVersion, isEip7702Marker, userOperationHash } from './user-operation.ts';

/**
 * Checks the op's authorization against the chain: its chain id, its delegate's code, its nonce
 * against the sender's, and (when `verifySigner`: not for estimation, whose authorization carries a
 * stub signature) that the sender signed it. A problem names the field: -32602, or -32500 when only
 * the chain's state refuses it (`authorizationRefusal`).
 */
export async function checkAuthorization(
  client: PublicClient,
  op: AnyUserOperation,
  chainId: number,
  { verifySigner }: { verifySigner: boolean },
): Promise<void> {
  const authorization = authorizationOf(op);
  if (!authorization) return;
  const [senderNonce, senderCode, delegateCode, signer] = await Promise.all([
    client.getTransactionCount({ address: op.sender, blockTag: 'pending' }),
    client.getCode({ address: op.sender }),
    client.getCode({ address: authorization.address }),
    verifySigner ? recoverAuthorizationAddress({ authorization }).catch(() => null) : Promise.resolve(undefined),
  ]);
  const problem = authorizationProblem(authorization, {
    sender: op.sender,
    chainId,
    senderNonce,
    senderCode,
    delegateCode,
    signer,
  });
  if (problem) throw authorizationRefusal(problem);
}

export interface AuthorizationPlan {
  /** The authorizations a bundle of these ops must carry, by sender (lower-case). */
  needed: Map<string, SignedAuthorization>;
  /** Ops (by index) whose authorization can no longer apply, and why: dropped before bundling. */
  refused: Map<number, string>;
}

/**
 * Which of a bundle's ops need their authorization in the transaction: not those whose sender already
 * delegates to the same address on chain. An authorization whose nonce the sender's has moved past (it
 * sent a transaction since) would be skipped by the chain, leaving the sender without code and
 * handleOps reverting without a FailedOp: such ops are refused here, with the reason.
 */
export async function planAuthorizations(client: PublicClient, ops: readonly AnyUserOperation[]): Promise<AuthorizationPlan> {
  const plan: AuthorizationPlan = { needed: new Map(), refused: new Map() };
  await Promise.all(
    ops.map(async (op, index) => {
      const authorization = authorizationOf(op);
      if (!authorization) return;
      const [code, nonce] = await Promise.all([
        client.getCode({ address: op.sender }),
        client.getTransactionCount({ address: op.sender, blockTag: 'pending' }),
      ]);
      if (alreadyDelegated(code, authorization.address)) return;
      if (authorization.nonce !== nonce) {
        plan.refused.set(
          index,
          `its EIP-7702 authorization has nonce ${authorization.nonce} but the sender's nonce is now ${nonce} (the EOA sent a transaction since): sign a new one`,
        );
        return;
      }
      plan.needed.set(op.sender.toLowerCase(), authorization);
    }),
  );
  return plan;
}

/** Send options with the authorization list, or none (an empty list would make a type-4 transaction that is invalid). */
export function withAuthorizations(
  list: readonly SignedAuthorization[],
): { authorizationList: SignedAuthorization[] } | Record<string, never> {
  return list.length > 0 ? { authorizationList: [...list] } : {};
}

/**
 * The op's hash as its EntryPoint computes it, reading the sender's delegate when the hash needs it
 * (a v0.8 op with the 0x7702 marker and no eip7702Auth: the sender must already be delegated).
 */
export async function userOperationHashOnChain(
  client: PublicClient,
  op: AnyUserOperation,
  version: EntryPointVersion,
  entryPoint: Address,
  chainId: number,
): Promise<Hex> {
  const packed = op as UserOperation<'0.7'>;
  if (version !== '0.8' || !isEip7702Marker(packed.factory) || packed.authorization)
    return userOperationHash(op, version, entryPoint, chainId);
  const delegate = delegateOf(await client.getCode({ address: op.sender }));
  if (!delegate)
    throw invalidAuthorization(
      `userOperation.factory is the 0x7702 marker but the sender ${op.sender} has no EIP-7702 delegation and the op carries no eip7702Auth`,
      'eip7702Auth',
    );
  return userOperationHash(op, version, entryPoint, chainId, delegate);
}
