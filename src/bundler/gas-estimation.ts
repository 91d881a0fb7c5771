import {
  type Address,
  BaseError,
  decodeErrorResult,
  encodeAbiParameters,
  type Hex,
  isHex,
  type PublicClient,
  parseAbiParameters,
  type StateOverride,
} from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { upstreamErrorIn } from '../core/upstream-error-in.ts';
import { eip7702AuthorizationGas } from './eip7702-authorization.ts';
import { authorizationOf, delegationOverride } from './eip7702-delegation.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { accountImplementation, shortMessage, simulateHandleOp, v06Struct } from './simulation.ts';
import { mergeStateOverrides, rpcStateOverride } from './state-override.ts';
import { type AnyUserOperation, deploysSender, type EntryPointVersion } from './user-operation.ts';

export interface GasEstimate {
  preVerificationGas: bigint;
  verificationGasLimit: bigint;
  callGasLimit: bigint;
  paymasterVerificationGasLimit?: bigint;
  paymasterPostOpGasLimit?: bigint;
}

/** A 65-byte signature of the right shape, for ops estimated before they are signed. */
const stubSignature: Hex = `0x${'ff'.repeat(64)}1c`;

const packedV07 = parseAbiParameters(
  '(address sender, uint256 nonce, bytes initCode, bytes callData, bytes32 accountGasLimits, uint256 preVerificationGas, bytes32 gasFees, bytes paymasterAndData, bytes signature)',
);
const structV06 = parseAbiParameters(
  '(address sender, uint256 nonce, bytes initCode, bytes callData, uint256 callGasLimit, uint256 verificationGasLimit, uint256 preVerificationGas, uint256 maxFeePerGas, uint256 maxPriorityFeePerGas, bytes paymasterAndData, bytes signature)',
);

/**
 * What the EntryPoint spends on a one-op bundle that no op's actualGasUsed counts (its loop, the
 * beneficiary's payment, events), measured on anvil: v0.7 spends 1,250 more than v0.8 (and 750 more
 * than 18,300 even with the 10% penalty on unused call gas that estimated ops pay it); 18,300 leaves
 * v0.8 about 1,100 over. test/bundler/bundle-overhead.test.ts checks that bundles pay for themselves.
 */
const entryPointOverhead: Record<EntryPointVersion, bigint> = { '0.6': 18_300n, '0.7': 19_600n, '0.8': 18_300n };

/**
 * The gas an op's share of the bundle transaction costs outside validation and execution: the
 * transaction's 21,000 (one op per bundle, the worst case), the EntryPoint's per-op overhead, the
 * calldata of the op as handleOps encodes it (16 per non-zero byte, 4 per zero byte), and the 25,000
 * of an EIP-7702 authorization when it carries one.
 */
export function preVerificationGasOf(op: AnyUserOperation, version: EntryPointVersion): bigint {
  // The signature counted as all non-zero bytes (at least 65): an estimate made with a stub signature
  // is then never below what the signed op needs.
  const signatureBytes = Math.max(65, (op.signature.length - 2) / 2);
  const withSig = { ...op, signature: `0x${'ff'.repeat(signatureBytes)}` as Hex };
  // Gas fields and the nonce's sequence at their maximum width, so the estimate does not fall short
  // when they are filled in or the next nonce is used.
  const wide = {
    ...withSig,
    nonce: withSig.nonce | 0xffffffffffffffffn,
    callGasLimit: 0xffffffn,
    verificationGasLimit: 0xffffffn,
    preVerificationGas: 0xffffffn,
    maxFeePerGas: 0xffffffffffn,
    maxPriorityFeePerGas: 0xffffffffffn,
    ...('paymaster' in withSig && withSig.paymaster
      ? { paymasterVerificationGasLimit: 0xffffffn, paymasterPostOpGasLimit: 0xffffffn }
      : {}),
  };
  const encoded =
    version !== '0.6'
      ? encodeAbiParameters(packedV07, [toPackedUserOperation(wide as UserOperation<'0.7'>)])
      : encodeAbiParameters(structV06, [v06Struct(wide as AnyUserOperation)]);
  let calldata = 0n;
  for (let i = 2; i < encoded.length; i += 2) calldata += encoded.slice(i, i + 2) === '00' ? 4n : 16n;
  const words = BigInt(Math.ceil((encoded.length - 2) / 64));
  const authorization = authorizationOf(op) ? eip7702AuthorizationGas : 0n;
  return 21_000n + entryPointOverhead[version] + 4n * words + calldata + authorization;
}

/**
 * Estimates an op's gas right the first time: validation gas from the EntryPoint's own simulation,
 * call gas from eth_estimateGas of the call as the EntryPoint makes it (for an account not deployed
 * yet, with its implementation's code in place), and a call that reverts is refused with its reason.
 * `override`: the state the op runs in when it is queued behind pending ops of its sender. A v0.7
 * estimate always has the paymaster's two limits (0 without a paymaster), as clients expect.
 */
export async function estimateUserOperationGas(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  override: StateOverride = [],
  /** The op's preVerificationGas when more than its L2 share (a rollup's L1 part): the probes then pay the prefund the op will. */
  preVerificationGas = preVerificationGasOf(op, version),
): Promise<GasEstimate> {
  const deploying = deploysSender(op);
  const hasPaymaster = 'paymasterAndData' in op ? op.paymasterAndData !== '0x' : Boolean((op as UserOperation<'0.7'>).paymaster);
  const probeOp = {
    ...op,
    signature: op.signature === '0x' ? stubSignature : op.signature,
    preVerificationGas,
    verificationGasLimit: deploying ? 3_000_000n : 1_000_000n,
    callGasLimit: 0n,
    // Real fees, not zero: the account then pays its prefund to the EntryPoint as it will for real (a
    // value transfer that validation gas must cover, unless its deposit covers it). simulateHandleOp
    // gives the sender the funds.
    ...(await realisticFees(client, op)),
    ...(version !== '0.6' && hasPaymaster
      ? { paymasterVerificationGasLimit: 1_000_000n, paymasterPostOpGasLimit: 200_000n }
      : {}),
  } as AnyUserOperation;
  const simulated = await simulateHandleOp(client, version, entryPoint, probeOp, undefined, override);
  const verificationUsed = simulated.preOpGas - preVerificationGas;
  const verificationGasLimit = verificationUsed + verificationUsed / 10n + 1_000n;
  // The call: a revert is refused with its reason (eth_estimateGas from the EntryPoint), and the gas
  // it takes is measured where it runs, in the EntryPoint after validation (warm), from what it pays.
  const [, executionUsed] = await Promise.all([
    estimateCallGas(client, entryPoint, op, deploying, override),
    op.callData === '0x'
      ? Promise.resolve(0n)
      : measureExecution(client, version, entryPoint, { ...probeOp, verificationGasLimit }, override),
  ]);
  const callGasLimit = op.callData === '0x' ? 0n : executionUsed + executionUsed / 10n + 2_000n;
  return {
    preVerificationGas,
    verificationGasLimit,
    callGasLimit,
    ...(version !== '0.6'
      ? {
          paymasterVerificationGasLimit: hasPaymaster ? verificationGasLimit : 0n,
          paymasterPostOpGasLimit: hasPaymaster ? 50_000n : 0n,
        }
      : {}),
  };
}

/** A call gas limit large enough for any call the probe makes. */
const probeCallGas = 5_000_000n;

/**
 * The gas the op's execution uses in the EntryPoint: simulateHandleOp with one gas price (maxFee =
 * maxPriorityFee) pays `price x actual gas`, where actual gas is preOpGas plus execution, plus in
 * v0.7 and v0.8 a 10% penalty on the unused call gas: execution = (10 (paid / price - preOpGas) - limit) / 9.
 */
async function measureExecution(
  client: PublicClient,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  override: StateOverride,
): Promise<bigint> {
  const price = 1_000_000_000n;
  const probe = { ...op, callGasLimit: probeCallGas, maxFeePerGas: price, maxPriorityFeePerGas: price } as AnyUserOperation;
  const { preOpGas, paid } = await simulateHandleOp(client, version, entryPoint, probe, undefined, override);
  const actual = paid / price - preOpGas;
  // v0.7 charges the penalty on the call and postOp limits together; v0.8 on each apart, the postOp's
  // only when the paymaster returned a context. Leaving the postOp limit out in v0.8 can only overstate.
  const postOpLimit = version === '0.7' ? ((probe as UserOperation<'0.7'>).paymasterPostOpGasLimit ?? 0n) : 0n;
  const execution = version !== '0.6' ? (10n * actual - (probeCallGas + postOpLimit)) / 9n : actual;
  return execution > 0n ? execution : 0n;
}

/** The op's fees when it names them, else what the next block asks (twice its base fee, plus 1 gwei). */
async function realisticFees(
  client: PublicClient,
  op: AnyUserOperation,
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  if (op.maxFeePerGas > 0n) return { maxFeePerGas: op.maxFeePerGas, maxPriorityFeePerGas: op.maxPriorityFeePerGas };
  const block = await client.getBlock({ blockTag: 'latest' });
  const tip = 1_000_000_000n;
  return { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + tip, maxPriorityFeePerGas: tip };
}

/**
 * Code that a not yet deployed sender will run, by factory (SimpleAccountFactory's implementation: set
 * at the factory's construction, so it never changes); factories of another kind are not kept.
 */
const implementationCodeByFactory = new Map<string, Promise<Hex | undefined>>();

function implementationCodeOf(client: PublicClient, factory: Address): Promise<Hex | undefined> {
  const key = `${client.chain?.id ?? ''}:${factory.toLowerCase()}`;
  let code = implementationCodeByFactory.get(key);
  if (code === undefined) {
    code = accountImplementation(client, factory).then(async (implementation) =>
      implementation ? ((await client.getCode({ address: implementation })) ?? undefined) : undefined,
    );
    implementationCodeByFactory.set(key, code);
    // Only a found code is kept: a factory deployed later, or a failed read, is asked again.
    const forget = () => implementationCodeByFactory.delete(key);
    code.then((found) => found === undefined && forget(), forget);
  }
  return code;
}

/**
 * The op's call as the EntryPoint makes it, with the state it will run in: an EIP-7702 sender's
 * delegation, or for a sender not deployed yet its implementation's code (plus the proxy's
 * delegatecall in `proxyOverhead`); undefined when that code is unknown (another kind of factory).
 */
async function callOf(
  client: PublicClient,
  entryPoint: Address,
  op: AnyUserOperation,
  deploying: boolean,
  queued: StateOverride,
): Promise<
  | { call: { from: Address; to: Address; data: Hex }; override: Record<string, Record<string, unknown>>; proxyOverhead: bigint }
  | undefined
> {
  const override: Record<string, Record<string, unknown>> = rpcStateOverride(mergeStateOverrides(queued, delegationOverride(op)));
  let proxyOverhead = 0n;
  if (deploying) {
    const factory =
      'initCode' in op ? ((op.initCode ?? '0x').slice(0, 42) as Address) : ((op as UserOperation<'0.7'>).factory as Address);
    const code = await implementationCodeOf(client, factory);
    if (!code) return undefined;
    override[op.sender] = { ...override[op.sender], code };
    proxyOverhead = 10_000n;
  }
  return { call: { from: entryPoint, to: op.sender, data: op.callData }, override, proxyOverhead };
}

/**
 * A call that reverts, in the words Alto uses: "UserOperation reverted during simulation with reason:
 * 0x…", the revert bytes as hex (the node's message when it gave none), and in `data`; an Error(string)
 * or Panic is also said decoded after it, as the reference bundler says it ("… (test fail)").
 */
function callReverted(error: unknown): Error {
  // The node could not be asked: not the op's revert (the route answers "upstream unavailable").
  if (upstreamErrorIn(error)) return error as Error;
  const data = revertDataOf(error);
  const decoded = data && standardRevertOf(data);
  return new BundlerRpcError(
    bundlerErrorCodes.executionReverted,
    `UserOperation reverted during simulation with reason: ${data ?? shortMessage(error)}${decoded ? ` (${decoded})` : ''}`,
    data,
  );
}

/** The words of an Error(string) revert, or Panic(code); nothing for custom errors and bare bytes. */
function standardRevertOf(data: Hex): string | undefined {
  try {
    const { errorName, args } = decodeErrorResult({ abi: [], data });
    if (errorName === 'Error') return String(args?.[0] ?? '');
    if (errorName === 'Panic') return `Panic(0x${BigInt(args?.[0] as bigint).toString(16)})`;
  } catch {}
  return undefined;
}

/** The revert bytes a node gave with its error (viem keeps them on the error or its cause). */
function revertDataOf(error: unknown): Hex | undefined {
  const found =
    error instanceof BaseError
      ? (error.walk((cause) => typeof (cause as { data?: unknown }).data === 'string') as { data?: unknown } | null)
      : (error as { data?: unknown } | null);
  const data = found?.data;
  return typeof data === 'string' && isHex(data) ? data : undefined;
}

/** eth_estimateGas of the op's call from the EntryPoint; a revert is -32521 with the reason. */
export async function estimateCallGas(
  client: PublicClient,
  entryPoint: Address,
  op: AnyUserOperation,
  deploying: boolean,
  queued: StateOverride = [],
): Promise<bigint> {
  if (op.callData === '0x') return 0n;
  const prepared = await callOf(client, entryPoint, op, deploying, queued);
  if (!prepared) return 500_000n;
  let estimate: bigint;
  try {
    const answer = await client.request({
      method: 'eth_estimateGas',
      params: [prepared.call, 'latest', prepared.override] as never,
    });
    estimate = BigInt(answer as string);
  } catch (error) {
    throw callReverted(error);
  }
  return estimate - 21_000n + 3_000n + prepared.proxyOverhead;
}

/**
 * The send's check that the op's call succeeds: one eth_call (eth_estimateGas would run it a dozen
 * times to search the gas); a revert is -32521 with the reason. Skipped for a sender whose code is
 * unknown before its deployment (another kind of factory).
 */
export async function checkCallSucceeds(
  client: PublicClient,
  entryPoint: Address,
  op: AnyUserOperation,
  deploying: boolean,
  queued: StateOverride = [],
): Promise<void> {
  if (op.callData === '0x') return;
  const prepared = await callOf(client, entryPoint, op, deploying, queued);
  if (!prepared) return;
  try {
    await client.request({ method: 'eth_call', params: [prepared.call, 'latest', prepared.override] as never });
  } catch (error) {
    throw callReverted(error);
  }
}
