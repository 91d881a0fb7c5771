import { type Address, encodeAbiParameters, type Hex, hexToBigInt, keccak256, parseAbiParameters, slice } from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';

// The hash each VerifyingPaymaster's getHash computes on chain, computed here without a call (pure).
// test/paymaster/paymaster-hash.test.ts checks both against the deployed contracts' getHash.

interface HashInput {
  readonly paymaster: Address;
  readonly chainId: number;
  readonly validUntil: number;
  readonly validAfter: number;
}

const v07Fields = parseAbiParameters(
  'address sender, uint256 nonce, bytes32 initCodeHash, bytes32 callDataHash, bytes32 accountGasLimits, uint256 paymasterGasLimits, uint256 preVerificationGas, bytes32 gasFees, uint256 chainId, address paymaster, uint48 validUntil, uint48 validAfter',
);

/**
 * VerifyingPaymaster v0.7's getHash(userOp, validUntil, validAfter): every field of the packed op but
 * the paymaster data and the signature, with the paymaster's two gas limits (which it signs too),
 * the chain id and the paymaster's address.
 */
export function verifyingPaymasterHashV07(
  input: HashInput & {
    op: UserOperation<'0.7'>;
    paymasterVerificationGasLimit: bigint;
    paymasterPostOpGasLimit: bigint;
  },
): Hex {
  const packed = toPackedUserOperation({
    ...input.op,
    paymaster: input.paymaster,
    paymasterVerificationGasLimit: input.paymasterVerificationGasLimit,
    paymasterPostOpGasLimit: input.paymasterPostOpGasLimit,
    paymasterData: '0x',
  });
  // paymasterAndData[20:52]: the two 16-byte gas limits, read as one uint256.
  const paymasterGasLimits = hexToBigInt(slice(packed.paymasterAndData, 20, 52));
  return keccak256(
    encodeAbiParameters(v07Fields, [
      packed.sender,
      packed.nonce,
      keccak256(packed.initCode),
      keccak256(packed.callData),
      packed.accountGasLimits,
      paymasterGasLimits,
      packed.preVerificationGas,
      packed.gasFees,
      BigInt(input.chainId),
      input.paymaster,
      input.validUntil,
      input.validAfter,
    ]),
  );
}

const v06Struct = parseAbiParameters(
  '(address sender, uint256 nonce, bytes initCode, bytes callData, uint256 callGasLimit, uint256 verificationGasLimit, uint256 preVerificationGas, uint256 maxFeePerGas, uint256 maxPriorityFeePerGas, bytes paymasterAndData, bytes signature)',
);
const v06Fields = parseAbiParameters(
  'bytes packedOp, uint256 chainId, address paymaster, uint256 senderNonce, uint48 validUntil, uint48 validAfter',
);
/** The tuple's head: 11 words, the 10th of which is where paymasterAndData's length word starts. */
const paymasterAndDataOffsetWord = 9;

/**
 * VerifyingPaymaster v0.6's getHash(userOp, validUntil, validAfter). The contract hashes the op's
 * calldata as the EntryPoint passes it (the standard ABI encoding of the struct) from its start up to
 * paymasterAndData's length word: the head (whose offsets depend on paymasterAndData's length, so
 * it is encoded at the length it will have) and the initCode and callData. Then the chain id, the
 * paymaster, its per-sender nonce (`senderNonce(sender)`, raised by each validation) and the range.
 */
export function verifyingPaymasterHashV06(
  input: HashInput & { op: UserOperation<'0.6'>; senderNonce: bigint; paymasterAndDataLength: number },
): Hex {
  const op = input.op;
  const encoded = encodeAbiParameters(v06Struct, [
    {
      sender: op.sender,
      nonce: op.nonce,
      initCode: op.initCode ?? '0x',
      callData: op.callData,
      callGasLimit: op.callGasLimit,
      verificationGasLimit: op.verificationGasLimit,
      preVerificationGas: op.preVerificationGas,
      maxFeePerGas: op.maxFeePerGas,
      maxPriorityFeePerGas: op.maxPriorityFeePerGas,
      paymasterAndData: `0x${'00'.repeat(input.paymasterAndDataLength)}`,
      signature: '0x',
    },
  ]);
  // A dynamic tuple alone is encoded as one offset word (0x20) and then the tuple itself.
  const tuple = slice(encoded, 32);
  const cut = Number(hexToBigInt(slice(tuple, paymasterAndDataOffsetWord * 32, (paymasterAndDataOffsetWord + 1) * 32)));
  const packedOp = slice(tuple, 0, cut);
  return keccak256(
    encodeAbiParameters(v06Fields, [
      packedOp,
      BigInt(input.chainId),
      input.paymaster,
      input.senderNonce,
      input.validUntil,
      input.validAfter,
    ]),
  );
}
