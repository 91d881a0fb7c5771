import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  parseAbi,
  type StateOverride,
  zeroAddress,
} from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { upstreamErrorIn } from '../core/upstream-error-in.ts';
import { entryPointV06Abi, simpleAccountFactoryAbi } from '../erc4337/contracts/abis.ts';
import { entryPointSimulationsV07Abi } from '../erc4337/contracts/entry-point-simulations.ts';
import { delegationOverride } from './eip7702-delegation.ts';
import { simulationsCodeOf } from './entry-points.ts';
import { aaError, BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { mergeStateOverrides } from './state-override.ts';
import { type AnyUserOperation, type EntryPointVersion, userOperationHash } from './user-operation.ts';

export interface ValidationOutcome {
  /** Gas used by validation (and the account's creation) plus preVerificationGas. */
  readonly preOpGas: bigint;
  readonly prefund: bigint;
  readonly sigFailed: boolean;
  /** Whose signature failed, when one did: the account's (AA24) or the paymaster's (AA34); undefined if unknown. */
  readonly sigFailedBy?: 'account' | 'paymaster';
  readonly validAfter: number;
  readonly validUntil: number;
  /** The account's and the paymaster's own ranges (v0.7); v0.6 reports only their intersection. */
  readonly ranges?: { readonly account: TimeRange; readonly paymaster: TimeRange };
  /** The paymaster returned a context for its postOp (ERC-7562 EREP-050: only a staked paymaster may). */
  readonly paymasterContext?: boolean;
  /** Each entity's stake in the EntryPoint (ERC-7562 treats staked entities more freely). */
  readonly stakes: { readonly sender: StakeInfo; readonly factory: StakeInfo; readonly paymaster: StakeInfo };
}

export interface TimeRange {
  readonly validAfter: number;
  readonly validUntil: number;
}

export interface StakeInfo {
  readonly stake: bigint;
  readonly unstakeDelaySec: bigint;
}

const stakeOf = (info: { stake: bigint; unstakeDelaySec: bigint | number } | undefined): StakeInfo => ({
  stake: info?.stake ?? 0n,
  unstakeDelaySec: BigInt(info?.unstakeDelaySec ?? 0),
});

/** The decoded revert (error name and args) inside a viem contract-call error, if the call reverted with one. */
export function revertOf(error: unknown): ContractFunctionRevertedError['data'] | undefined {
  const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null;
  return (reverted as ContractFunctionRevertedError | null)?.data;
}

/**
 * An EntryPoint revert as ERC-7769's error, with the AAxx reason in words: FailedOp, FailedOpWithRevert,
 * or a plain Error("AAxx …") (v0.6's `require`s: AA41, AA94).
 */
function failedOpOf(data: ContractFunctionRevertedError['data'] | undefined): BundlerRpcError | undefined {
  if (data?.errorName === 'FailedOp' || data?.errorName === 'FailedOpWithRevert') {
    const reason = String(data.args?.[1] ?? '');
    const inner = data.errorName === 'FailedOpWithRevert' ? decodeInnerRevert(data.args?.[2] as Hex) : '';
    return aaError(reason, inner || undefined);
  }
  const message = data?.errorName === 'Error' ? String(data.args?.[0] ?? '') : '';
  return /^AA\d\d/.test(message) ? aaError(message) : undefined;
}

function decodeInnerRevert(data: Hex | undefined): string {
  if (!data || data === '0x') return '';
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    return `${decoded.errorName}${decoded.args ? `: ${decoded.args.join(', ')}` : ''}`;
  } catch {
    return `revert data ${data.slice(0, 74)}`;
  }
}

/** One override entry per address (viem refuses two): the code at `address` merged into the entry already there. */
function withCodeAt(address: Address, code: Hex, override: StateOverride): StateOverride {
  const same = (entry: { address: Address }) => entry.address.toLowerCase() === address.toLowerCase();
  const existing = override.find(same);
  return [{ ...existing, address, code }, ...override.filter((entry) => !same(entry))];
}

/** Splits the packed validation data: aggregator or signature failure flag, validUntil, validAfter. */
export function parseValidationData(validationData: bigint): { sigFailed: boolean; validAfter: number; validUntil: number } {
  const aggregator = validationData & ((1n << 160n) - 1n);
  const validUntil = Number((validationData >> 160n) & ((1n << 48n) - 1n));
  const validAfter = Number(validationData >> 208n);
  return { sigFailed: aggregator === 1n, validUntil: validUntil === 0 ? Number.MAX_SAFE_INTEGER : validUntil, validAfter };
}

/** The call that runs the EntryPoint's validation of `op` (v0.6 `simulateValidation` reverts with its result). */
export function simulationCallData(version: EntryPointVersion, op: AnyUserOperation): Hex {
  return version !== '0.6'
    ? encodeFunctionData({
        abi: entryPointSimulationsV07Abi,
        functionName: 'simulateValidation',
        args: [toPackedUserOperation(op as UserOperation<'0.7'>)],
      })
    : encodeFunctionData({ abi: entryPointV06Abi, functionName: 'simulateValidation', args: [v06Struct(op)] });
}

/**
 * Runs the EntryPoint's own validation of the op against the current chain state: v0.7 through
 * EntryPointSimulations put in place of the EntryPoint's code (a state override), v0.6 with
 * `simulateValidation`, which reverts with its result. An op with an EIP-7702 authorization runs with
 * its sender's code delegated (a state override too).
 */
export async function simulateValidation(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  extraOverride: StateOverride = [],
): Promise<ValidationOutcome> {
  try {
    if (version !== '0.6') {
      const { result } = await client.simulateContract({
        address: entryPoint,
        abi: entryPointSimulationsV07Abi,
        functionName: 'simulateValidation',
        args: [toPackedUserOperation(op as UserOperation<'0.7'>)],
        stateOverride: withCodeAt(
          entryPoint,
          simulationsCodeOf(version),
          mergeStateOverrides(extraOverride, delegationOverride(op)),
        ),
      });
      return outcomeOfV07(result);
    }
    await client.simulateContract({
      address: entryPoint,
      abi: entryPointV06Abi,
      functionName: 'simulateValidation',
      args: [v06Struct(op)],
      stateOverride: extraOverride,
    });
  } catch (error) {
    // The node could not be asked: not the op's failure (the route answers "upstream unavailable").
    if (upstreamErrorIn(error)) throw error;
    return outcomeOfRevert(client, version, entryPoint, op, revertOf(error), shortMessage(error));
  }
  throw new BundlerRpcError(bundlerErrorCodes.internal, 'simulateValidation returned without a result');
}

/**
 * The same outcome read from a trace of the same call (the top frame's output, or its revert data), so
 * that a send whose validation is traced anyway (the ERC-7562 check) need not run it a second time.
 */
export async function simulationOutcomeOfFrame(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  frame: { output?: string; error?: string },
): Promise<ValidationOutcome> {
  const output = (frame.output ?? '0x') as Hex;
  if (frame.error === undefined) {
    if (version !== '0.6') {
      const result = decodeFunctionResult({ abi: entryPointSimulationsV07Abi, functionName: 'simulateValidation', data: output });
      return outcomeOfV07(result);
    }
    throw new BundlerRpcError(bundlerErrorCodes.internal, 'simulateValidation returned without a result');
  }
  let revert: ContractFunctionRevertedError['data'] | undefined;
  try {
    revert = decodeErrorResult({ abi: version !== '0.6' ? entryPointSimulationsV07Abi : entryPointV06Abi, data: output });
  } catch {
    revert = undefined;
  }
  const described = output === '0x' ? frame.error : `${frame.error}: ${describeRevert(output)}`;
  return outcomeOfRevert(client, version, entryPoint, op, revert, described);
}

const hasBytes = (data: Hex | undefined) => data !== undefined && data.length > 2;

type V07ValidationResult = ReturnType<typeof decodeFunctionResult<typeof entryPointSimulationsV07Abi, 'simulateValidation'>>;

function outcomeOfV07(result: V07ValidationResult): ValidationOutcome {
  const account = parseValidationData(result.returnInfo.accountValidationData);
  const paymaster = parseValidationData(result.returnInfo.paymasterValidationData);
  return {
    preOpGas: result.returnInfo.preOpGas,
    prefund: result.returnInfo.prefund,
    paymasterContext: hasBytes(result.returnInfo.paymasterContext),
    sigFailed: account.sigFailed || paymaster.sigFailed,
    sigFailedBy: account.sigFailed ? 'account' : paymaster.sigFailed ? 'paymaster' : undefined,
    validAfter: Math.max(account.validAfter, paymaster.validAfter),
    validUntil: Math.min(account.validUntil, paymaster.validUntil),
    ranges: {
      account: { validAfter: account.validAfter, validUntil: account.validUntil },
      paymaster: { validAfter: paymaster.validAfter, validUntil: paymaster.validUntil },
    },
    stakes: {
      sender: stakeOf(result.senderInfo),
      factory: stakeOf(result.factoryInfo),
      paymaster: stakeOf(result.paymasterInfo),
    },
  };
}

/** A reverted simulation: the EntryPoint's FailedOp as its AAxx error, v0.6's ValidationResult as the outcome. */
async function outcomeOfRevert(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  reverted: ContractFunctionRevertedError['data'] | undefined,
  described: string,
): Promise<ValidationOutcome> {
  const failed = failedOpOf(reverted);
  if (failed) throw failed;
  if (
    version === '0.6' &&
    (reverted?.errorName === 'ValidationResult' || reverted?.errorName === 'ValidationResultWithAggregation')
  ) {
    const info = reverted.args?.[0] as {
      preOpGas: bigint;
      prefund: bigint;
      sigFailed: boolean;
      validAfter: number;
      validUntil: number;
      paymasterContext?: Hex;
    };
    return {
      preOpGas: info.preOpGas,
      prefund: info.prefund,
      paymasterContext: hasBytes(info.paymasterContext),
      sigFailed: info.sigFailed,
      sigFailedBy: info.sigFailed ? await whoseSignatureFailedV06(client, entryPoint, op, info.prefund) : undefined,
      validAfter: Number(info.validAfter),
      validUntil: Number(info.validUntil) === 0 ? Number.MAX_SAFE_INTEGER : Number(info.validUntil),
      stakes: {
        sender: stakeOf(reverted.args?.[1] as StakeInfo | undefined),
        factory: stakeOf(reverted.args?.[2] as StakeInfo | undefined),
        paymaster: stakeOf(reverted.args?.[3] as StakeInfo | undefined),
      },
    };
  }
  throw new BundlerRpcError(bundlerErrorCodes.rejectedByAccount, `validation failed in simulation: ${described}`);
}

const paymasterV06Abi = parseAbi([
  'struct UserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }',
  'function validatePaymasterUserOp(UserOperation userOp, bytes32 userOpHash, uint256 maxCost) returns (bytes context, uint256 validationData)',
]);

/**
 * EntryPoint v0.6 reports one signature failure for the account and the paymaster together. With a
 * paymaster, its own validation (called as the EntryPoint calls it) tells whose it is; undefined when
 * that call fails.
 */
async function whoseSignatureFailedV06(
  client: PublicClient,
  entryPoint: Address,
  op: AnyUserOperation,
  prefund: bigint,
): Promise<'account' | 'paymaster' | undefined> {
  const struct = v06Struct(op);
  if (struct.paymasterAndData.length < 42) return 'account';
  try {
    const chainId = client.chain?.id ?? (await client.getChainId());
    const { result } = await client.simulateContract({
      account: entryPoint,
      address: getAddress(struct.paymasterAndData.slice(0, 42)),
      abi: paymasterV06Abi,
      functionName: 'validatePaymasterUserOp',
      args: [struct, userOperationHash(op, '0.6', entryPoint, chainId), prefund],
    });
    return parseValidationData(result[1]).sigFailed ? 'paymaster' : 'account';
  } catch {
    return undefined;
  }
}

/**
 * The whole op (validation and execution) simulated, with the sender given a large balance so the
 * prefund never fails estimation: the gas validation used, and whether a call made after it (the
 * op's own callData sent to the sender from the EntryPoint) succeeds.
 */
export async function simulateHandleOp(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  probe: { target: Address; data: Hex } = { target: zeroAddress, data: '0x' },
  extraOverride: StateOverride = [],
): Promise<{ preOpGas: bigint; paid: bigint; targetSuccess: boolean; targetResult: Hex }> {
  // An EIP-7702 sender also gets its delegation, as its bundle will give it.
  const funded = mergeStateOverrides(extraOverride, [{ ...delegationOverride(op)[0], address: op.sender, balance: 10n ** 24n }]);
  try {
    if (version !== '0.6') {
      const { result } = await client.simulateContract({
        address: entryPoint,
        abi: entryPointSimulationsV07Abi,
        functionName: 'simulateHandleOp',
        args: [toPackedUserOperation(op as UserOperation<'0.7'>), probe.target, probe.data],
        stateOverride: withCodeAt(entryPoint, simulationsCodeOf(version), funded),
      });
      return {
        preOpGas: result.preOpGas,
        paid: result.paid,
        targetSuccess: result.targetSuccess,
        targetResult: result.targetResult,
      };
    }
    await client.simulateContract({
      address: entryPoint,
      abi: entryPointV06Abi,
      functionName: 'simulateHandleOp',
      args: [v06Struct(op), probe.target, probe.data],
      stateOverride: funded,
    });
  } catch (error) {
    if (upstreamErrorIn(error)) throw error;
    const reverted = revertOf(error);
    const failed = failedOpOf(reverted);
    if (failed) throw failed;
    if (version === '0.6' && reverted?.errorName === 'ExecutionResult') {
      const [preOpGas, paid, , , targetSuccess, targetResult] = reverted.args as [bigint, bigint, number, number, boolean, Hex];
      return { preOpGas, paid, targetSuccess, targetResult };
    }
    throw new BundlerRpcError(bundlerErrorCodes.rejectedByAccount, `the operation fails in simulation: ${shortMessage(error)}`);
  }
  throw new BundlerRpcError(bundlerErrorCodes.internal, 'simulateHandleOp returned without a result');
}

/** A v0.6 op as the EntryPoint's struct: every field present. */
export function v06Struct(op: AnyUserOperation) {
  const v06 = op as UserOperation<'0.6'>;
  return {
    sender: v06.sender,
    nonce: v06.nonce,
    initCode: v06.initCode ?? '0x',
    callData: v06.callData,
    callGasLimit: v06.callGasLimit,
    verificationGasLimit: v06.verificationGasLimit,
    preVerificationGas: v06.preVerificationGas,
    maxFeePerGas: v06.maxFeePerGas,
    maxPriorityFeePerGas: v06.maxPriorityFeePerGas,
    paymasterAndData: v06.paymasterAndData ?? '0x',
    signature: v06.signature,
  } as const;
}

/**
 * A revert's reason as bundlers give it: an Error(string)'s message, `Panic(0x11)`, else the raw data;
 * undefined when there is no data at all.
 */
export function revertReasonOf(data: Hex): string | undefined {
  if (data === '0x') return undefined;
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    if (decoded.errorName === 'Error') return String(decoded.args?.[0] ?? '');
    return `${decoded.errorName}(${(decoded.args ?? []).map((arg) => (typeof arg === 'bigint' ? `0x${arg.toString(16)}` : String(arg))).join(', ')})`;
  } catch {
    return data;
  }
}

/** A revert's reason in words: Error(string), Panic, or the raw data. */
export function describeRevert(data: Hex): string {
  if (!data || data === '0x') return 'reverted without a reason';
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`;
  } catch {
    return `reverted with data ${data.slice(0, 138)}`;
  }
}

export function shortMessage(error: unknown): string {
  return error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);
}

/**
 * The code a not yet deployed SimpleAccount will run (its factory's implementation), so its call can
 * be estimated with eth_estimateGas before it exists; undefined for another kind of factory.
 */
export async function accountImplementation(client: PublicClient, factory: Address): Promise<Address | undefined> {
  try {
    return await client.readContract({ address: factory, abi: simpleAccountFactoryAbi, functionName: 'accountImplementation' });
  } catch {
    return undefined;
  }
}
