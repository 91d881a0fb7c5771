import { decodeFunctionData, getAddress, type Hex, hexToBigInt, size, slice } from 'viem';
import { entryPointAbiOf } from './entry-points.ts';
import type { EntryPointVersion, RpcUserOperation } from './user-operation.ts';

interface PackedOp {
  sender: Hex;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  accountGasLimits: Hex;
  preVerificationGas: bigint;
  gasFees: Hex;
  paymasterAndData: Hex;
  signature: Hex;
}

interface V06Op {
  sender: Hex;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymasterAndData: Hex;
  signature: Hex;
}

const quantity = (value: bigint) => `0x${value.toString(16)}`;
/** The high and low 128 bits of a packed bytes32 (v0.7's accountGasLimits and gasFees). */
const halves = (word: Hex) => [hexToBigInt(slice(word, 0, 16)), hexToBigInt(slice(word, 16, 32))] as const;

/**
 * The ops a bundle transaction's input carries, in execution order: the arguments of the EntryPoint's
 * `handleOps`, or of `handleAggregatedOps` (each aggregator's ops in turn); undefined when the input is
 * neither (a bundle sent through another contract).
 */
export function bundledUserOperations(version: EntryPointVersion, input: Hex): RpcUserOperation[] | undefined {
  let decoded: { functionName: string; args: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi: entryPointAbiOf(version), data: input }) as typeof decoded;
  } catch {
    return undefined;
  }
  const ops =
    decoded.functionName === 'handleOps'
      ? (decoded.args[0] as readonly unknown[])
      : decoded.functionName === 'handleAggregatedOps'
        ? (decoded.args[0] as readonly { userOps: readonly unknown[] }[]).flatMap((group) => group.userOps)
        : undefined;
  return ops?.map((op) => (version === '0.6' ? v06Form(op as V06Op) : unpackedForm(op as PackedOp)));
}

function v06Form(op: V06Op): RpcUserOperation {
  return {
    sender: op.sender,
    nonce: quantity(op.nonce),
    initCode: op.initCode,
    callData: op.callData,
    callGasLimit: quantity(op.callGasLimit),
    verificationGasLimit: quantity(op.verificationGasLimit),
    preVerificationGas: quantity(op.preVerificationGas),
    maxFeePerGas: quantity(op.maxFeePerGas),
    maxPriorityFeePerGas: quantity(op.maxPriorityFeePerGas),
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  };
}

/** A v0.7/v0.8 packed op in the JSON-RPC form (ERC-7769): its packed fields split back apart. */
function unpackedForm(op: PackedOp): RpcUserOperation {
  const [verificationGasLimit, callGasLimit] = halves(op.accountGasLimits);
  const [maxPriorityFeePerGas, maxFeePerGas] = halves(op.gasFees);
  const form: RpcUserOperation = { sender: op.sender, nonce: quantity(op.nonce) };
  if (size(op.initCode) >= 20) {
    form.factory = getAddress(slice(op.initCode, 0, 20));
    form.factoryData = size(op.initCode) > 20 ? slice(op.initCode, 20) : '0x';
  }
  Object.assign(form, {
    callData: op.callData,
    callGasLimit: quantity(callGasLimit),
    verificationGasLimit: quantity(verificationGasLimit),
    preVerificationGas: quantity(op.preVerificationGas),
    maxFeePerGas: quantity(maxFeePerGas),
    maxPriorityFeePerGas: quantity(maxPriorityFeePerGas),
  });
  if (size(op.paymasterAndData) >= 52) {
    Object.assign(form, {
      paymaster: getAddress(slice(op.paymasterAndData, 0, 20)),
      paymasterVerificationGasLimit: quantity(hexToBigInt(slice(op.paymasterAndData, 20, 36))),
      paymasterPostOpGasLimit: quantity(hexToBigInt(slice(op.paymasterAndData, 36, 52))),
      paymasterData: size(op.paymasterAndData) > 52 ? slice(op.paymasterAndData, 52) : '0x',
    });
  }
  form.signature = op.signature;
  return form;
}
