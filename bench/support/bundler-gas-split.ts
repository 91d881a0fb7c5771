// Where an op's gas went, from its bundle transaction's call trace (anvil's debug_traceTransaction with
// the callTracer): EntryPoint v0.7 passes the op's preOpGas (preVerificationGas plus the gas validation
// used, as it measured it) to its own innerHandleOp, and the account's execute call is a frame of that.
import { type Address, decodeFunctionData, type Hex } from 'viem';
import { entryPoint07Abi, entryPoint07Address } from 'viem/account-abstraction';
import { anvilCall } from './anvil-rpc.ts';

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

function findInnerHandleOp(frame: CallFrame, sender: Address): { preOpGas: bigint; callFrameUsed: bigint } | undefined {
  if (lower(frame.from) === lower(entryPoint07Address) && lower(frame.to) === lower(entryPoint07Address)) {
    try {
      const decoded = decodeFunctionData({ abi: entryPoint07Abi, data: frame.input });
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
    const found = findInnerHandleOp(inner, sender);
    if (found) return found;
  }
  return undefined;
}

/**
 * The split of one op's actualGasUsed. EntryPoint v0.7.0 charges actualGasUsed = preOpGas +
 * executionUsed + 10% of (callGasLimit - executionUsed) when that is positive, so the execution it
 * counted is recovered from the receipt's actualGasUsed.
 */
export async function gasSplit(
  anvilUrl: string,
  op: { bundleTx: Hex; sender: Address; preVerificationGas: bigint; callGasLimit: bigint; actualGasUsed: bigint },
): Promise<GasSplit | undefined> {
  const trace = (await anvilCall(anvilUrl, 'debug_traceTransaction', [op.bundleTx, { tracer: 'callTracer' }])) as CallFrame;
  const found = findInnerHandleOp(trace, op.sender);
  if (!found) return undefined;
  const afterValidation = op.actualGasUsed - found.preOpGas;
  // afterValidation = used + (limit - used) / 10 when used < limit, else used.
  const withPenalty = (afterValidation * 10n - op.callGasLimit) / 9n;
  const executionUsed = withPenalty < op.callGasLimit ? withPenalty : afterValidation;
  return { verificationUsed: found.preOpGas - op.preVerificationGas, executionUsed, callFrameUsed: found.callFrameUsed };
}
