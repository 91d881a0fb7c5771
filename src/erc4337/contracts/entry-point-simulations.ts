import type { Hex } from 'viem';
import { parseAbi } from 'viem';
import { entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction';
import type { EntryPointVersion } from './abis.ts';
import { readErc4337Artifact } from './artifacts.ts';

const simulationFunctions = parseAbi([
  'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }',
  'struct ReturnInfo { uint256 preOpGas; uint256 prefund; uint256 accountValidationData; uint256 paymasterValidationData; bytes paymasterContext; }',
  'struct StakeInfo { uint256 stake; uint256 unstakeDelaySec; }',
  'struct AggregatorStakeInfo { address aggregator; StakeInfo stakeInfo; }',
  'struct ValidationResult { ReturnInfo returnInfo; StakeInfo senderInfo; StakeInfo factoryInfo; StakeInfo paymasterInfo; AggregatorStakeInfo aggregatorInfo; }',
  'struct ExecutionResult { uint256 preOpGas; uint256 paid; uint256 accountValidationData; uint256 paymasterValidationData; bool targetSuccess; bytes targetResult; }',
  'function simulateValidation(PackedUserOperation userOp) returns (ValidationResult)',
  'function simulateHandleOp(PackedUserOperation op, address target, bytes targetCallData) returns (ExecutionResult)',
]);

/**
 * EntryPointSimulations v0.7: EntryPoint's ABI plus `simulateValidation` and `simulateHandleOp`, which
 * v0.7 moved out of the EntryPoint. They return (not revert) their result; errors are EntryPoint's.
 */
export const entryPointSimulationsV07Abi = [...entryPoint07Abi, ...simulationFunctions] as const;

/** EntryPointSimulations v0.8: the same two functions over v0.8's EntryPoint. */
export const entryPointSimulationsV08Abi = [...entryPoint08Abi, ...simulationFunctions] as const;

export type PackedEntryPointVersion = Exclude<EntryPointVersion, 'v06'>;

const runtimeCodes = new Map<PackedEntryPointVersion, Hex>();

/**
 * Runtime code of EntryPointSimulations (v0.7 or v0.8), never deployed: put it in place of the
 * EntryPoint's code with an eth_call state override. Its sender creator (and in v0.8 its EIP-712
 * domain) is computed from the EntryPoint's address, so it needs no immutables; the EntryPoint's
 * storage (deposits, nonces) stays as on chain.
 *
 * @example
 * const stateOverride = [{ address: erc4337Addresses.v07.entryPoint, code: getEntryPointSimulationsCode('v07') }];
 */
export function getEntryPointSimulationsCode(version: PackedEntryPointVersion): Hex {
  let code = runtimeCodes.get(version);
  if (!code) {
    code = readErc4337Artifact(version, 'EntryPointSimulations').deployedBytecode;
    runtimeCodes.set(version, code);
  }
  return code;
}

/** v0.7's, as `getEntryPointSimulationsCode('v07')`. */
export const getEntryPointSimulationsV07Code = (): Hex => getEntryPointSimulationsCode('v07');
