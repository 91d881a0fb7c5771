import { type Address, concat, getAddress, type Hex, isAddress, pad, type SignedAuthorization, toHex, zeroAddress } from 'viem';
import { BundlerRpcError, bundlerErrorCodes, invalidParams } from './rpc-errors.ts';

/**
 * The intrinsic gas an authorization adds to the bundle transaction (EIP-7702's PER_EMPTY_ACCOUNT_COST,
 * charged in full before any refund): the op's preVerificationGas must cover it.
 */
export const eip7702AuthorizationGas = 25_000n;

const fieldName = 'userOperation.eip7702Auth';

/** A -32602 for a bad authorization, worded as the reference bundlers word it ("Invalid EIP-7702 authorization: …"). */
export const invalidAuthorization = (message: string, field?: string) =>
  invalidParams(`Invalid EIP-7702 authorization: ${message}`, field);
/** The error for an authorization problem: -32500 when the chain's state refuses it, else -32602. */
export function authorizationRefusal(problem: AuthorizationProblem): BundlerRpcError {
  if (!problem.byChainState) return invalidAuthorization(problem.message, 'eip7702Auth');
  return new BundlerRpcError(bundlerErrorCodes.rejectedByAccount, `Invalid EIP-7702 authorization: ${problem.message}`, {
    field: 'eip7702Auth',
  });
}
const hexNumber = /^0x[0-9a-fA-F]{1,64}$/;

function hexField(auth: Record<string, unknown>, name: string): bigint {
  const value = auth[name];
  if (value === undefined || value === null) throw invalidAuthorization(`${fieldName}.${name} is missing`, `eip7702Auth.${name}`);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== 'string' || !hexNumber.test(value))
    throw invalidAuthorization(
      `${fieldName}.${name} must be a 0x hex number, got ${JSON.stringify(value).slice(0, 80)}`,
      `eip7702Auth.${name}`,
    );
  return BigInt(value);
}

/** secp256k1's group order: an ECDSA r or s is in 1..n-1, and EIP-7702 takes only s <= n/2 (EIP-2). */
const secp256k1Order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** r or s of the authorization's signature, refused (naming it) when no valid signature could have it. */
function signatureScalar(auth: Record<string, unknown>, name: 'r' | 's'): bigint {
  const value = hexField(auth, name);
  if (value === 0n || value >= secp256k1Order)
    throw invalidAuthorization(
      `${fieldName}.${name} is not a valid ECDSA signature value: it must be between 1 and secp256k1n - 1`,
      `eip7702Auth.${name}`,
    );
  if (name === 's' && value > secp256k1Order / 2n)
    throw invalidAuthorization(
      `${fieldName}.s is above secp256k1n/2: a high-s (malleable) signature, which EIP-7702 refuses; use its low-s form`,
      'eip7702Auth.s',
    );
  return value;
}

/** yParity (0 or 1), or else v (27 or 28, or 0 or 1): the recovery bit. */
function recoveryBit(auth: Record<string, unknown>): number {
  const hasYParity = auth.yParity !== undefined && auth.yParity !== null;
  const hasV = auth.v !== undefined && auth.v !== null;
  if (!hasYParity && !hasV) throw invalidAuthorization(`${fieldName}.yParity is missing`, 'eip7702Auth.yParity');
  const yParity = hasYParity ? hexField(auth, 'yParity') : undefined;
  if (yParity !== undefined && yParity > 1n)
    throw invalidAuthorization(`${fieldName}.yParity must be 0x0 or 0x1, got ${yParity}`, 'eip7702Auth.yParity');
  const v = hasV ? hexField(auth, 'v') : undefined;
  const fromV = v === undefined ? undefined : v >= 27n ? v - 27n : v;
  if (fromV !== undefined && fromV > 1n)
    throw invalidAuthorization(`${fieldName}.v must be 27 or 28 (or 0 or 1), got ${v}`, 'eip7702Auth.v');
  if (yParity !== undefined && fromV !== undefined && yParity !== fromV)
    throw invalidAuthorization(`${fieldName}.yParity (${yParity}) and v (${v}) disagree`, 'eip7702Auth.yParity');
  return Number(yParity ?? fromV);
}

/**
 * Reads an op's `eip7702Auth` (the EIP-7702 authorization its sender EOA signed, in the form current
 * bundlers accept: `address` or `contractAddress`, `yParity` or `v`); a missing or malformed field is
 * a -32602 naming it. Whether it is valid for this chain and sender is `authorizationProblem`'s question.
 */
export function parseEip7702Auth(input: unknown): SignedAuthorization {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidAuthorization(`${fieldName} must be an object {chainId, address, nonce, r, s, yParity}`);
  const auth = input as Record<string, unknown>;
  const delegate = auth.address ?? auth.contractAddress;
  if (delegate === undefined || delegate === null)
    throw invalidAuthorization(`${fieldName}.address is missing`, 'eip7702Auth.address');
  if (typeof delegate !== 'string' || !isAddress(delegate, { strict: false }))
    throw invalidAuthorization(
      `${fieldName}.address must be a 0x address, got ${JSON.stringify(delegate).slice(0, 80)}`,
      'eip7702Auth.address',
    );
  const chainId = hexField(auth, 'chainId');
  if (chainId > BigInt(Number.MAX_SAFE_INTEGER))
    throw invalidAuthorization(`${fieldName}.chainId ${chainId} is not a chain id`, 'eip7702Auth.chainId');
  const nonce = hexField(auth, 'nonce');
  // EIP-7702 caps it below 2^64; viem keeps it as a JavaScript number.
  if (nonce > BigInt(Number.MAX_SAFE_INTEGER))
    throw invalidAuthorization(`${fieldName}.nonce ${nonce} is too large`, 'eip7702Auth.nonce');
  const word = (name: 'r' | 's') => pad(toHex(signatureScalar(auth, name)), { size: 32 });
  return {
    address: getAddress(delegate),
    chainId: Number(chainId),
    nonce: Number(nonce),
    r: word('r'),
    s: word('s'),
    yParity: recoveryBit(auth),
  };
}

/** The authorization in its JSON-RPC form, as viem sends it: what eth_getUserOperationByHash answers. */
export function formatEip7702Auth(auth: SignedAuthorization): Record<string, string> {
  return {
    address: auth.address,
    chainId: toHex(auth.chainId),
    nonce: toHex(auth.nonce),
    r: auth.r,
    s: auth.s,
    yParity: toHex(auth.yParity ?? 0, { size: 1 }),
  };
}

/** The code an EOA has once it delegates to `delegate`: 0xef0100 followed by the address. */
export function delegationDesignator(delegate: Address): Hex {
  return concat(['0xef0100', delegate]).toLowerCase() as Hex;
}

/** The address an EOA delegates to, read from its code; undefined when the code is not a designator. */
export function delegateOf(code: Hex | undefined): Address | undefined {
  if (code?.length !== 48 || !code.toLowerCase().startsWith('0xef0100')) return undefined;
  return getAddress(`0x${code.slice(8)}`);
}

/** Whether the account already runs `delegate`'s code on chain: the authorization then has nothing to do. */
export function alreadyDelegated(senderCode: Hex | undefined, delegate: Address): boolean {
  return delegateOf(senderCode)?.toLowerCase() === delegate.toLowerCase();
}

export interface AuthorizationFacts {
  sender: Address;
  chainId: number;
  /** The sender's next transaction nonce (pending). */
  senderNonce: number;
  senderCode: Hex | undefined;
  delegateCode: Hex | undefined;
  /** Who signed the authorization (null: it does not recover); undefined: not checked (estimation's stub signature). */
  signer?: Address | null;
}

/**
 * What makes an authorization unusable for its op. `byChainState`: it is well formed, for this chain
 * and signed by the sender, but the chain's present state refuses it (the EOA's nonce has moved, the
 * delegate has no code). The EntryPoint's simulation would then fail for the account, so it is -32500
 * as the reference bundlers answer it; any other problem is the authorization's own, -32602.
 */
export interface AuthorizationProblem {
  message: string;
  byChainState: boolean;
}

/**
 * What makes the authorization unusable for this op, in words naming the field, or undefined when it
 * is good: another chain, a delegate without code, another signer than the sender, a nonce that is not
 * the sender's next (unless the sender already has this delegation: the bundle then leaves it out).
 */
export function authorizationProblem(auth: SignedAuthorization, facts: AuthorizationFacts): AuthorizationProblem | undefined {
  const own = (message: string) => ({ message, byChainState: false });
  const ofChain = (message: string) => ({ message, byChainState: true });
  if (auth.chainId !== 0 && auth.chainId !== facts.chainId)
    return own(`${fieldName}.chainId is ${auth.chainId}; it must be this network's ${facts.chainId} (or 0, any chain)`);
  if (auth.address === zeroAddress)
    return own(`${fieldName}.address is the zero address, which removes a delegation: the sender would have no account code`);
  if (delegateOf(facts.delegateCode))
    return own(`${fieldName}.address ${auth.address} is itself a delegated EOA: delegations are not followed twice`);
  if (facts.signer !== undefined && facts.signer?.toLowerCase() !== facts.sender.toLowerCase()) {
    return own(
      `${fieldName} is not signed by the sender ${facts.sender}: its signature (r, s, yParity) ${
        facts.signer ? `recovers to ${facts.signer}` : 'does not recover to any address'
      }; the sender EOA must sign the authorization`,
    );
  }
  if (!facts.delegateCode || facts.delegateCode === '0x')
    return ofChain(`${fieldName}.address ${auth.address} has no code on this network: deploy the account implementation first`);
  if (auth.nonce !== facts.senderNonce && !alreadyDelegated(facts.senderCode, auth.address))
    return ofChain(
      `${fieldName}.nonce is ${auth.nonce}; the sender's transaction nonce is ${facts.senderNonce} (an authorization is valid only for the EOA's current nonce: sign it again)`,
    );
  return undefined;
}
