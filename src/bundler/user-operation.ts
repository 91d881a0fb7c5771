import { type Address, getAddress, type Hex, isAddress } from 'viem';
import { getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import { formatEip7702Auth, parseEip7702Auth } from './eip7702-authorization.ts';
import { invalidParams } from './rpc-errors.ts';

export type EntryPointVersion = '0.6' | '0.7';

/** A UserOperation as the JSON-RPC methods carry it: every number a 0x quantity. */
export type RpcUserOperation = Record<string, unknown>;

export type AnyUserOperation = UserOperation<'0.6'> | UserOperation<'0.7'>;

const quantity = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;
const bytes = /^0x([0-9a-fA-F]{2})*$/;

function field(op: RpcUserOperation, name: string, kind: 'address' | 'quantity' | 'bytes', fallback?: string): string {
  const value = op[name] ?? fallback;
  if (typeof value !== 'string') throw invalidParams(`userOperation.${name} is missing`, name);
  const ok =
    kind === 'address' ? isAddress(value, { strict: false }) : kind === 'quantity' ? quantity.test(value) : bytes.test(value);
  const what =
    kind === 'address' ? 'a 0x address' : kind === 'quantity' ? 'a 0x hex quantity without leading zeros' : '0x hex bytes';
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

/**
 * Reads an op of the EntryPoint's version from its JSON-RPC form; a missing or malformed field is a
 * -32602 naming it. `defaults` fills gas fields (estimation).
 */
export function parseUserOperation(
  version: EntryPointVersion,
  input: unknown,
  defaults: Partial<Record<string, string>> = {},
): AnyUserOperation {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidParams('the first parameter must be a UserOperation object');
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
    if (hasAuthorization)
      throw invalidParams('userOperation.eip7702Auth is supported with EntryPoint v0.7 only; send the op to EntryPoint v0.7');
    for (const name of ['factory', 'paymaster']) {
      if (op[name] !== undefined)
        throw invalidParams(`userOperation.${name} is a v0.7 field; EntryPoint v0.6 takes initCode and paymasterAndData`);
    }
    return {
      ...common,
      initCode: field(op, 'initCode', 'bytes', '0x') as Hex,
      paymasterAndData: field(op, 'paymasterAndData', 'bytes', '0x') as Hex,
    } satisfies UserOperation<'0.6'>;
  }
  for (const name of ['initCode', 'paymasterAndData']) {
    if (op[name] !== undefined && op[name] !== '0x') {
      throw invalidParams(
        `userOperation.${name} is a v0.6 field; EntryPoint v0.7 takes factory/factoryData and paymaster/paymasterData`,
      );
    }
  }
  // The EOA is the account: nothing to deploy. (The 0x7702 factory marker is EntryPoint v0.8's.)
  if (hasAuthorization && op.factory !== undefined && op.factory !== null)
    throw invalidParams(
      'userOperation.factory must be left out with eip7702Auth: the sender EOA is the account (EntryPoint v0.7 has no 0x7702 factory marker)',
    );
  const factory = op.factory === undefined || op.factory === null ? undefined : getAddress(field(op, 'factory', 'address'));
  const paymaster =
    op.paymaster === undefined || op.paymaster === null ? undefined : getAddress(field(op, 'paymaster', 'address'));
  return {
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

export function userOperationHash(op: AnyUserOperation, version: EntryPointVersion, entryPoint: Address, chainId: number): Hex {
  return version === '0.6'
    ? getUserOperationHash({
        userOperation: op as UserOperation<'0.6'>,
        entryPointAddress: entryPoint,
        entryPointVersion: '0.6',
        chainId,
      })
    : getUserOperationHash({
        userOperation: op as UserOperation<'0.7'>,
        entryPointAddress: entryPoint,
        entryPointVersion: '0.7',
        chainId,
      });
}

/** Whether the op deploys its sender (initCode or factory). */
export function deploysSender(op: AnyUserOperation): boolean {
  return 'initCode' in op ? op.initCode !== '0x' : Boolean((op as UserOperation<'0.7'>).factory);
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
  return { factory: v07.factory?.toLowerCase() ?? null, paymaster: v07.paymaster?.toLowerCase() ?? null };
}
