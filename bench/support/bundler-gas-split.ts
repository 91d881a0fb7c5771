// Where an op's gas went, from its bundle transaction's call trace (anvil's debug_traceTransaction with
// the callTracer): EntryPoint v0.7 and v0.8 pass the op's preOpGas (preVerificationGas plus the gas
// validation used, as it measured it) to their own innerHandleOp, and the account's execute call is a
// frame of that.
import { type Address, decodeFunctionData, type Hex } from 'viem';
import { entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction';
import { anvilCall } from './anvil-rpc.ts';
import type { OpVersion } from './bundler-ops.ts';

interface CallFrame {
  from: Address;
  to?: Address;
  input: Hex;
  gasUsed: Hex;
  calls?: CallFrame[];
}

export interface GasSplit {
  /** preOpGas - preVerificationGas: the gas validation (and the account's creation) used. */
  verificationUsed: bigint;
  /** The gas the EntryPoint counted for execution (the account's call and its own accounting around it), penalty removed. */
  executionUsed: bigint;
  /** The account's own execute frame (what callGasLimit must cover). */
  callFrameUsed: bigint;
}

const lower = (address: string | undefined) => address?.toLowerCase();

/** v0.8 charges the 10% penalty on unused call gas only when more than this is unused. */
const penaltyThresholdV08 = 40_000n;

function findInnerHandleOp(
  frame: CallFrame,
  entryPoint: Address,
  version: OpVersion,
  sender: Address,
): { preOpGas: bigint; callFrameUsed: bigint } | undefined {
  if (lower(frame.from) === lower(entryPoint) && lower(frame.to) === lower(entryPoint)) {
    try {
      const decoded = decodeFunctionData({ abi: version === '0.8' ? entryPoint08Abi : entryPoint07Abi, data: frame.input });
      if (decoded.functionName === 'innerHandleOp') {
        const opInfo = decoded.args[1] as { preOpGas: bigint };
        const call = frame.calls?.find((inner) => lower(inner.to) === lower(sender));
        return { preOpGas: opInfo.preOpGas, callFrameUsed: call ? BigInt(call.gasUsed) : 0n };
      }
    } catch {
      // Another self-call.
    }
  }
  for (const inner of frame.calls ?? []) {
    const found = findInnerHandleOp(inner, entryPoint, version, sender);
    if (found) return found;
  }
  return undefined;
}

/**
 * The split of one op's actualGasUsed. EntryPoint v0.7.0 charges actualGasUsed = preOpGas +
 * executionUsed + 10% of (callGasLimit - executionUsed) when that is positive; v0.8.0 the same, but
 * only when more than 40,000 of the call gas is unused. The execution it counted is recovered from the
 * receipt's actualGasUsed (in v0.8, when 36,000-40,000 are unused, either reading could be the right one:
 * the one without the penalty is taken).
 */
export async function gasSplit(
  anvilUrl: string,
  op: {
    bundleTx: Hex;
    entryPoint: Address;
    version: OpVersion;
    sender: Address;
    preVerificationGas: bigint;
    callGasLimit: bigint;
    actualGasUsed: bigint;
  },
): Promise<GasSplit | undefined> {
  const trace = (await anvilCall(anvilUrl, 'debug_traceTransaction', [op.bundleTx, { tracer: 'callTracer' }])) as CallFrame;
  const found = findInnerHandleOp(trace, op.entryPoint, op.version, op.sender);
  if (!found) return undefined;
  const afterValidation = op.actualGasUsed - found.preOpGas;
  // afterValidation = used + (limit - used) / 10 when used < limit (v0.8: limit - used > 40,000), else used.
  const withPenalty = (afterValidation * 10n - op.callGasLimit) / 9n;
  const unpenalised = op.version === '0.8' && op.callGasLimit - afterValidation <= penaltyThresholdV08;
  const executionUsed = withPenalty < op.callGasLimit && !unpenalised ? withPenalty : afterValidation;
  return { verificationUsed: found.preOpGas - op.preVerificationGas, executionUsed, callFrameUsed: found.callFrameUsed };
}
