import { type Hex, parseAbi } from 'viem';
import { entryPoint07Abi } from 'viem/account-abstraction';
import { readErc4337Artifact } from './artifacts.ts';

/**
 * EntryPointSimulations v0.7: EntryPoint's ABI plus `simulateValidation` and `simulateHandleOp`, which
 * v0.7 moved out of the EntryPoint. They return (not revert) their result; errors are EntryPoint's.
 */
export const entryPointSimulationsV07Abi = [
  ...entryPoint07Abi,
  ...parseAbi([
    'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }',
    'struct ReturnInfo { uint256 preOpGas; uint256 prefund; uint256 accountValidationData; uint256 paymasterValidationData; bytes paymasterContext; }',
    'struct StakeInfo { uint256 stake; uint256 unstakeDelaySec; }',
    'struct AggregatorStakeInfo { address aggregator; StakeInfo stakeInfo; }',
    'struct ValidationResult { ReturnInfo returnInfo; StakeInfo senderInfo; StakeInfo factoryInfo; StakeInfo paymasterInfo; AggregatorStakeInfo aggregatorInfo; }',
    'struct ExecutionResult { uint256 preOpGas; uint256 paid; uint256 accountValidationData; uint256 paymasterValidationData; bool targetSuccess; bytes targetResult; }',
    'function simulateValidation(PackedUserOperation userOp) returns (ValidationResult)',
    'function simulateHandleOp(PackedUserOperation op, address target, bytes targetCallData) returns (ExecutionResult)',
  ]),
] as const;

let runtimeCode: Hex | undefined;

/**
 * Runtime code of EntryPointSimulations v0.7, never deployed: put it in place of the EntryPoint's code
 * with an eth_call state override. Its `_senderCreator` is computed from the EntryPoint's address, so it
 * needs no immutables; the EntryPoint's storage (deposits, nonces) stays as on chain.
 *
 * @example
 * const stateOverride = [{ address: erc4337Addresses.v07.entryPoint, code: getEntryPointSimulationsV07Code() }];
 */
export function getEntryPointSimulationsV07Code(): Hex {
  runtimeCode ??= readErc4337Artifact('v07', 'EntryPointSimulations').deployedBytecode;
  return runtimeCode;
}
