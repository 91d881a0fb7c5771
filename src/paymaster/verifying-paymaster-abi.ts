import { parseAbi } from 'viem';

// The parts of eth-infinitism's VerifyingPaymaster (samples/VerifyingPaymaster.sol) Blockyard calls.
// test/paymaster/abis.test.ts checks each item against the ABI of the artifact that is deployed.

/** VerifyingPaymaster for EntryPoint v0.7: getHash takes the packed op. */
export const verifyingPaymasterV07Abi = parseAbi([
  'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }',
  'function getHash(PackedUserOperation userOp, uint48 validUntil, uint48 validAfter) view returns (bytes32)',
  'function verifyingSigner() view returns (address)',
  'function entryPoint() view returns (address)',
  'function owner() view returns (address)',
  'function getDeposit() view returns (uint256)',
]);

/** VerifyingPaymaster for EntryPoint v0.6: getHash also covers senderNonce(sender), which each validation raises. */
export const verifyingPaymasterV06Abi = parseAbi([
  'struct UserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }',
  'function getHash(UserOperation userOp, uint48 validUntil, uint48 validAfter) view returns (bytes32)',
  'function senderNonce(address sender) view returns (uint256)',
  'function verifyingSigner() view returns (address)',
  'function entryPoint() view returns (address)',
  'function owner() view returns (address)',
  'function getDeposit() view returns (uint256)',
]);
