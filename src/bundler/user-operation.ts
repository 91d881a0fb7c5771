import { type Address, getAddress, type Hex, isAddress } from 'viem';
import { getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import { formatEip7702Auth, parseEip7702Auth } from './eip7702-authorization.ts';
import { invalidParams } from './rpc-errors.ts';

export type EntryPointVersion = '0.6' | '0.7' | '0.8';

/** A UserOperation as the JSON-RPC methods carry it: every number a 0x quantity. */
export type RpcUserOperation = Record<string, unknown>;

export type AnyUserOperation = UserOperation<'0.6'> | UserOperation<'0.7'>;

const quantity = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;
const bytes = /^0x([0-9a-fA-F]{2})*$/;

function field(op: RpcUserOperation, name: string, kind: 'address' | 'quantity' | 'bytes', fallback?: string): string {
  const value = op[name] ?? fallback;
  const what =
    kind === 'address' ? 'a 0x address' : kind === 'quantity' ? 'a 0x hex quantity without leading zeros' : '0x hex bytes';
  if (value === undefined || value === null) throw invalidParams(`userOperation.${name} is missing`, name);
  // A JSON number or anything else is there but of the wrong type: said so, not "missing".
  if (typeof value !== 'string')
    throw invalidParams(`userOperation.${name} must be ${what} (a string), got ${JSON.stringify(value)?.slice(0, 80)}`, name);
  const ok =
    kind === 'address' ? isAddress(value, { strict: false }) : kind === 'quantity' ? quantity.test(value) : bytes.test(value);
  if (!ok) throw invalidParams(`userOperation.${name} must be ${what}, got ${JSON.stringify(value).slice(0, 80)}`, name);
  return value;
}

/** Gas fields may be left out when estimating: these stand in. */
export const estimationDefaults = {
  callGasLimit: '0x0',
  verificationGasLimit: '0x0',
  preVerificationGas: '0x0',
  maxFeePerGas: '0x0',
  maxPriorityFeePerGas: '0x0',
} as const;

/** -32602 unless the call's first parameter is an object (checked before its EntryPoint, which names the op's version). */
export function requireUserOperationObject(input: unknown): void {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidParams('the first parameter must be a UserOperation object');
}

/**
 * Reads an op of the EntryPoint's version from its JSON-RPC form; a missing or malformed field is a
 * -32602 naming it. `defaults` fills gas fields (estimation).
 */
export function parseUserOperation(
  version: EntryPointVersion,
  input: unknown,
  defaults: Partial<Record<string, string>> = {},
): AnyUserOperation {
  requireUserOperationObject(input);
  const op = input as RpcUserOperation;
  const big = (name: string) => BigInt(field(op, name, 'quantity', defaults[name]));
  const common = {
    sender: getAddress(field(op, 'sender', 'address')),
    nonce: big('nonce'),
    callData: field(op, 'callData', 'bytes') as Hex,
    callGasLimit: big('callGasLimit'),
    verificationGasLimit: big('verificationGasLimit'),
    preVerificationGas: big('preVerificationGas'),
    maxFeePerGas: big('maxFeePerGas'),
    maxPriorityFeePerGas: big('maxPriorityFeePerGas'),
    signature: field(op, 'signature', 'bytes', defaults.signature) as Hex,
  };
  const hasAuthorization = op.eip7702Auth !== undefined && op.eip7702Auth !== null;
  if (version === '0.6') {
    for (const name of ['factory', 'paymaster']) {
      if (op[name] !== undefined && op[name] !== null)
        throw invalidParams(`userOperation.${name} is a v0.7 field; EntryPoint v0.6 takes initCode and paymasterAndData`);
    }
    const initCode = field(op, 'initCode', 'bytes', '0x') as Hex;
    // The EntryPoint reads the factory from the first 20 bytes: shorter, its simulation reverts without a reason.
    if (initCode !== '0x' && initCode.length < 42)
      throw invalidParams(
        'userOperation.initCode must be empty or start with the 20-byte factory address (then the call data for it)',
        'initCode',
      );
    // As Alto serves it: the EOA delegating with the authorization is the account (v0.6 has no 0x7702 marker).
    if (hasAuthorization && initCode !== '0x')
      throw invalidParams('userOperation.initCode must be empty with eip7702Auth: the sender EOA is the account', 'initCode');
    return {
      ...common,
      initCode,
      paymasterAndData: field(op, 'paymasterAndData', 'bytes', '0x') as Hex,
      ...(hasAuthorization ? { authorization: parseEip7702Auth(op.eip7702Auth) } : {}),
    } satisfies UserOperation<'0.6'>;
  }
  for (const name of ['initCode', 'paymasterAndData']) {
    if (op[name] !== undefined && op[name] !== '0x') {
      throw invalidParams(
        `userOperation.${name} is a v0.6 field; EntryPoint v${version} takes factory/factoryData and paymaster/paymasterData`,
      );
    }
  }
  const marker = isEip7702Marker(op.factory);
  if (marker && version === '0.7')
    throw invalidParams(
      "userOperation.factory 0x7702 is EntryPoint v0.8's EIP-7702 marker: send the op to EntryPoint v0.8, or leave factory out with eip7702Auth on v0.7",
      'factory',
    );
  // On v0.7 the EOA is the account: nothing to deploy.
  if (hasAuthorization && !marker && op.factory !== undefined && op.factory !== null)
    throw invalidParams(
      'userOperation.factory must be left out (or be the 0x7702 marker on v0.8) with eip7702Auth: the sender EOA is the account',
      'factory',
    );
  const factory = marker
    ? eip7702FactoryMarker
    : op.factory === undefined || op.factory === null
      ? undefined
      : getAddress(field(op, 'factory', 'address'));
  const paymaster =
    op.paymaster === undefined || op.paymaster === null ? undefined : getAddress(field(op, 'paymaster', 'address'));
  const parsed = {
    ...common,
    ...(factory ? { factory, factoryData: field(op, 'factoryData', 'bytes', '0x') as Hex } : {}),
    ...(paymaster
      ? {
          paymaster,
          paymasterData: field(op, 'paymasterData', 'bytes', '0x') as Hex,
          paymasterVerificationGasLimit: BigInt(
            field(op, 'paymasterVerificationGasLimit', 'quantity', defaults.paymasterVerificationGasLimit ?? '0x0'),
          ),
          paymasterPostOpGasLimit: BigInt(
            field(op, 'paymasterPostOpGasLimit', 'quantity', defaults.paymasterPostOpGasLimit ?? '0x0'),
          ),
        }
      : {}),
    ...(hasAuthorization ? { authorization: parseEip7702Auth(op.eip7702Auth) } : {}),
  } satisfies UserOperation<'0.7'>;
  checkPacked(parsed, version);
  return parsed;
}

/** Fields EntryPoint v0.7 and v0.8 pack two to a 32-byte word: each must fit in 128 bits. */
const packedFields = [
  'callGasLimit',
  'verificationGasLimit',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
] as const;
const maxUint128 = (1n << 128n) - 1n;

function checkPacked(op: UserOperation<'0.7'>, version: EntryPointVersion) {
  for (const name of packedFields) {
    if ((op[name] ?? 0n) > maxUint128)
      throw invalidParams(`userOperation.${name} must fit in 128 bits: EntryPoint v${version} packs it with another field`, name);
  }
}

const hex = (value: bigint) => `0x${value.toString(16)}`;

/** The op back in its JSON-RPC form (what eth_getUserOperationByHash answers); its authorization as `eip7702Auth`. */
export function toRpcUserOperation(op: AnyUserOperation): Record<string, string | Record<string, string>> {
  const out: Record<string, string | Record<string, string>> = {};
  for (const [key, value] of Object.entries(op)) {
    if (value === undefined) continue;
    if (key === 'authorization') out.eip7702Auth = formatEip7702Auth(value as NonNullable<UserOperation<'0.7'>['authorization']>);
    else out[key] = typeof value === 'bigint' ? hex(value) : String(value);
  }
  return out;
}

/**
 * The op's hash as its EntryPoint computes it. A v0.8 op with the 0x7702 marker is hashed with its
 * delegate in place of the marker: the authorization's address, or `delegate` (the sender's delegate
 * on chain) when it carries none (`userOperationHashOnChain` reads it).
 */
export function userOperationHash(
  op: AnyUserOperation,
  version: EntryPointVersion,
  entryPoint: Address,
  chainId: number,
  delegate?: Address,
): Hex {
  if (version === '0.6')
    return getUserOperationHash({
      userOperation: op as UserOperation<'0.6'>,
      entryPointAddress: entryPoint,
      entryPointVersion: '0.6',
      chainId,
    });
  const packed = op as UserOperation<'0.7'>;
  if (version === '0.7')
    return getUserOperationHash({ userOperation: packed, entryPointAddress: entryPoint, entryPointVersion: '0.7', chainId });
  if (isEip7702Marker(packed.factory) && !packed.authorization) {
    if (!delegate) throw new Error("a v0.8 op with the 0x7702 marker and no eip7702Auth is hashed with its sender's delegate");
    return getUserOperationHash({
      userOperation: { ...packed, authorization: { address: delegate, chainId: 0, nonce: 0, r: '0x0', s: '0x0', yParity: 0 } },
      entryPointAddress: entryPoint,
      entryPointVersion: '0.8',
      chainId,
    });
  }
  return getUserOperationHash({ userOperation: packed, entryPointAddress: entryPoint, entryPointVersion: '0.8', chainId });
}

/** EntryPoint v0.8's EIP-7702 initCode marker: 0x7702 padded to an address. */
export const eip7702FactoryMarker: Address = '0x7702000000000000000000000000000000000000';

/** Whether a `factory` field is v0.8's EIP-7702 marker, short (`0x7702`, as viem sends it) or padded. */
export function isEip7702Marker(factory: unknown): boolean {
  return typeof factory === 'string' && (factory === '0x7702' || factory.toLowerCase() === eip7702FactoryMarker);
}

/** Whether the op deploys its sender (initCode or factory; v0.8's 0x7702 marker deploys nothing). */
export function deploysSender(op: AnyUserOperation): boolean {
  if ('initCode' in op) return op.initCode !== '0x';
  const factory = (op as UserOperation<'0.7'>).factory;
  return Boolean(factory) && !isEip7702Marker(factory);
}

/** The op's factory and paymaster (lower-case), the entities ERC-7562 keeps a reputation of. */
export function entitiesOf(op: AnyUserOperation): { factory: string | null; paymaster: string | null } {
  if ('initCode' in op && op.initCode !== undefined) {
    const v06 = op as UserOperation<'0.6'>;
    return {
      factory: v06.initCode && v06.initCode.length >= 42 ? v06.initCode.slice(0, 42).toLowerCase() : null,
      paymaster:
        v06.paymasterAndData && v06.paymasterAndData.length >= 42 ? v06.paymasterAndData.slice(0, 42).toLowerCase() : null,
    };
  }
  const v07 = op as UserOperation<'0.7'>;
  const factory = v07.factory && !isEip7702Marker(v07.factory) ? v07.factory.toLowerCase() : null;
  return { factory, paymaster: v07.paymaster?.toLowerCase() ?? null };
}
