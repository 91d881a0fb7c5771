import type { SignedAuthorization, StateOverride } from 'viem';
import { delegationDesignator } from './eip7702-authorization.ts';
import type { AnyUserOperation } from './user-operation.ts';

/** The op's EIP-7702 authorization, if it carries one (only v0.7 ops can). */
export function authorizationOf(op: AnyUserOperation): SignedAuthorization | undefined {
  return 'authorization' in op ? op.authorization : undefined;
}

/**
 * The state override that runs an op as its bundle will: the sender's code is the delegation
 * designator of its authorization, so calls to it run the delegate's code. Empty without one.
 */
export function delegationOverride(op: AnyUserOperation): StateOverride {
  const authorization = authorizationOf(op);
  return authorization ? [{ address: op.sender, code: delegationDesignator(authorization.address) }] : [];
}
