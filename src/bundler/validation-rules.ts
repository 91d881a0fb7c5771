import { type Address, encodeFunctionData, type Hex } from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { entryPointV06Abi } from '../erc4337/contracts/abis.ts';
import { entryPointSimulationsV07Abi, getEntryPointSimulationsV07Code } from '../erc4337/contracts/entry-point-simulations.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { v06Struct } from './simulation.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/**
 * ERC-7562 OP-011/OP-080/OP-031: what validation code may not use, because its result can differ
 * between the simulation and the bundle (or lets one op change what another sees).
 */
const bannedOpcodes = new Set([
  'GASPRICE',
  'GASLIMIT',
  'DIFFICULTY',
  'PREVRANDAO',
  'TIMESTAMP',
  'BASEFEE',
  'BLOCKHASH',
  'NUMBER',
  'SELFBALANCE',
  'BALANCE',
  'ORIGIN',
  'COINBASE',
  'SELFDESTRUCT',
  'CREATE',
  'BLOBHASH',
  'BLOBBASEFEE',
]);
const callOpcodes = new Set(['CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE']);

export interface StructLog {
  readonly op: string;
  readonly depth: number;
  readonly stack?: readonly string[];
}

export interface RuleViolation {
  readonly entity: 'account' | 'factory' | 'paymaster' | 'unknown';
  readonly opcode: string;
}

/**
 * Finds the first banned opcode in a validation trace. Depth 1 is the EntryPoint itself; what runs
 * deeper is an entity's validation: the account's validateUserOp, the factory (through the
 * EntryPoint's SenderCreator), or the paymaster's validatePaymasterUserOp. GAS is allowed right
 * before a call (the gas to forward), CREATE2 once, for the factory deploying the sender.
 * Pure: the trace in, the violation out.
 */
export function findRuleViolation(
  logs: readonly StructLog[],
  entities: { sender: Address; paymaster?: Address },
): RuleViolation | undefined {
  const sender = entities.sender.toLowerCase();
  const paymaster = entities.paymaster?.toLowerCase();
  /** The address called at each depth, read from the caller's stack at the call. */
  const frames: string[] = [];
  let create2 = 0;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    if (callOpcodes.has(log.op) && log.stack && log.stack.length >= 2) {
      const target = `0x${log.stack[log.stack.length - 2]!.replace(/^0x/, '').padStart(40, '0').slice(-40)}`;
      frames[log.depth + 1] = target.toLowerCase();
    }
    if (log.depth < 2) continue;
    const top = frames[2];
    const entity: RuleViolation['entity'] =
      top === sender
        ? 'account'
        : paymaster && top === paymaster
          ? 'paymaster'
          : log.depth >= 3 || top !== undefined
            ? 'factory'
            : 'unknown';
    if (log.op === 'GAS') {
      const next = logs[i + 1];
      if (next && callOpcodes.has(next.op)) continue;
      return { entity, opcode: 'GAS' };
    }
    if (log.op === 'CREATE2') {
      if (++create2 > 1 || entity !== 'factory') return { entity, opcode: 'CREATE2' };
      continue;
    }
    if (bannedOpcodes.has(log.op)) return { entity, opcode: log.op };
  }
  return undefined;
}

export type TraceCall = (
  call: { to: Address; data: Hex },
  options: Record<string, unknown>,
) => Promise<{ structLogs?: StructLog[] }>;

/**
 * Traces the op's validation (the simulation the EntryPoint runs) with the struct logger and refuses
 * it when an entity uses a banned opcode. Returns false when the upstream offers no debug_traceCall
 * (the rules are then not checked).
 */
export async function checkValidationRules(
  trace: TraceCall,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  stateOverrides: Record<string, Record<string, unknown>> = {},
): Promise<boolean> {
  const data =
    version === '0.7'
      ? encodeFunctionData({
          abi: entryPointSimulationsV07Abi,
          functionName: 'simulateValidation',
          args: [toPackedUserOperation(op as UserOperation<'0.7'>)],
        })
      : encodeFunctionData({ abi: entryPointV06Abi, functionName: 'simulateValidation', args: [v06Struct(op)] });
  const overrides =
    version === '0.7'
      ? { ...stateOverrides, [entryPoint]: { ...stateOverrides[entryPoint], code: getEntryPointSimulationsV07Code() } }
      : stateOverrides;
  let result: { structLogs?: StructLog[] };
  try {
    result = await trace(
      { to: entryPoint, data },
      { disableMemory: true, disableStorage: true, enableReturnData: false, stateOverrides: overrides },
    );
  } catch (error) {
    if (/not (found|supported|available)|does not exist|unknown method/i.test((error as Error).message)) return false;
    throw error;
  }
  const paymaster =
    'paymasterAndData' in op
      ? op.paymasterAndData && op.paymasterAndData.length >= 42
        ? (op.paymasterAndData.slice(0, 42) as Address)
        : undefined
      : (op as UserOperation<'0.7'>).paymaster;
  const violation = findRuleViolation(result.structLogs ?? [], { sender: op.sender, paymaster });
  if (violation) {
    throw new BundlerRpcError(
      bundlerErrorCodes.bannedOpcode,
      `ERC-7562: the ${violation.entity}'s validation uses ${violation.opcode}, which validation may not use (its result can change between simulation and bundling)`,
      { entity: violation.entity, opcode: violation.opcode },
    );
  }
  return true;
}
