import { type Address, concat, encodeAbiParameters, type Hex, parseAbiParameters } from 'viem';
import type { UserOperation } from 'viem/account-abstraction';
import type { AnyUserOperation } from '../bundler/user-operation.ts';
import { verifyingPaymasterHashV06, verifyingPaymasterHashV07 } from './paymaster-hash.ts';
import type { PaymasterSetup } from './paymaster-setup.ts';

/**
 * Gas for the VerifyingPaymaster's validation. Measured on anvil in real bundles
 * (test/paymaster/sponsored-ops.test.ts): v0.7 7.5k, 9.0k with 4 KB of callData (0.4 gas a byte): its
 * own limit (AA36 when over) is 30k. v0.6 31.4k for a sender's first op (its first write of
 * senderNonce costs 22.1k), then ~26k with 4 KB of callData (2.9 gas a byte, it copies the op twice):
 * EntryPoint v0.6 has no paymaster limit of its own, the op's verificationGasLimit covers account
 * and paymaster (an estimate with the stub data includes it), so this is a figure to price with.
 * The paymaster has no postOp (its context is empty): its postOp limit is 0.
 */
export const paymasterGasLimits: {
  readonly v07: { readonly verification: bigint; readonly postOp: bigint };
  readonly v06: { readonly verification: bigint };
} = {
  v07: { verification: 30_000n, postOp: 0n },
  v06: { verification: 60_000n },
};

/** What goes into the op: v0.7's four paymaster fields, or v0.6's paymasterAndData. */
export type SponsoredFields =
  | {
      readonly version: '0.7';
      readonly paymaster: Address;
      readonly paymasterData: Hex;
      readonly paymasterVerificationGasLimit: bigint;
      readonly paymasterPostOpGasLimit: bigint;
    }
  | { readonly version: '0.6'; readonly paymasterAndData: Hex };

/** A sponsorship that cannot be signed as asked (a field out of range, a v0.6 op without the paymaster's nonce). */
export class PaymasterDataError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'PaymasterDataError';
  }
}

export interface SponsorshipToSign {
  readonly setup: PaymasterSetup;
  readonly chainId: number;
  /** The op as it will be sent: every field final but the paymaster's (which are replaced) and the signature. */
  readonly op: AnyUserOperation;
  /** Unix seconds; 0 means no end. */
  readonly validUntil: number;
  readonly validAfter: number;
  /** v0.6 only: the paymaster's `senderNonce(op.sender)` when the op validates (`readPaymasterSenderNonce`). */
  readonly senderNonce?: bigint;
}

const uint48Max = 2 ** 48 - 1;
const timeRange = parseAbiParameters('uint48 validUntil, uint48 validAfter');
const signatureLength = 65;
/** paymaster (20) ‖ abi.encode(validUntil, validAfter) (64) ‖ signature (65). */
const v06PaymasterAndDataLength = 20 + 64 + signatureLength;

/**
 * The paymaster fields that make the paymaster pay for `op` between validAfter and validUntil: the
 * range and the sponsor key's EIP-191 signature of the paymaster's getHash (computed here, as the
 * contract does). v0.7's fields carry `paymasterGasLimits.v07`, which the signature covers: put
 * them into the op as they are.
 *
 * @example
 * const fields = await sponsoredPaymasterFields({ setup, chainId: 31337, op, validUntil: now + 600, validAfter: 0 });
 * const sponsored = withPaymasterFields(op, fields);
 */
export async function sponsoredPaymasterFields(args: SponsorshipToSign): Promise<SponsoredFields> {
  const { setup, chainId, validUntil, validAfter } = args;
  checkTime('validUntil', validUntil);
  checkTime('validAfter', validAfter);
  if (validUntil !== 0 && validAfter > validUntil)
    throw new PaymasterDataError('validAfter', `is after validUntil (${validUntil})`);
  const range = encodeAbiParameters(timeRange, [validUntil, validAfter]);
  const signed = { paymaster: setup.address, chainId, validUntil, validAfter };
  if (setup.version !== '0.6') {
    const { verification, postOp } = paymasterGasLimits.v07;
    const hash = verifyingPaymasterHashV07({
      ...signed,
      op: args.op as UserOperation<'0.7'>,
      paymasterVerificationGasLimit: verification,
      paymasterPostOpGasLimit: postOp,
    });
    const signature = await setup.signer.signMessage({ message: { raw: hash } });
    return {
      version: '0.7',
      paymaster: setup.address,
      paymasterData: concat([range, signature]),
      paymasterVerificationGasLimit: verification,
      paymasterPostOpGasLimit: postOp,
    };
  }
  if (args.senderNonce === undefined)
    throw new PaymasterDataError(
      'senderNonce',
      'the v0.6 paymaster signs its senderNonce(sender): read it first (readPaymasterSenderNonce)',
    );
  const hash = verifyingPaymasterHashV06({
    ...signed,
    op: args.op as UserOperation<'0.6'>,
    senderNonce: args.senderNonce,
    paymasterAndDataLength: v06PaymasterAndDataLength,
  });
  const signature = await setup.signer.signMessage({ message: { raw: hash } });
  return { version: '0.6', paymasterAndData: concat([setup.address, range, signature]) };
}

/**
 * A signature of the right length that ECDSA.recover accepts (low s, v = 28) and that recovers to an
 * address no sponsor key has, for any hash: the paymaster then answers SIG_VALIDATION_FAILED instead
 * of reverting, on the same code path (and gas) as a real signature. Every byte is non-zero, so
 * preVerificationGas is not underestimated. (A throwaway key's signature of a fixed message.)
 */
export const stubPaymasterSignature: Hex =
  '0x3ce6050d1cb3b4e32aca045ff7ee9acda4ed634bbb2b38aa20a3fb83c48668a5531f83385f79608e0bdfa0396cae80ae6374b206070dee61655df4c42160e8e61c';
/**
 * The stub's range: no end (all six bytes non-zero) and a start in 1970 (four non-zero bytes, as many
 * as any real start has until 2106): never fewer non-zero bytes than real data.
 */
const stubValidUntil = uint48Max;
const stubValidAfter = 0x01010101;

/**
 * ERC-7677 stub data: the real data's length and code path, for gas estimation only (the bundler
 * refuses it on send: the signature does not verify).
 */
export function stubPaymasterFields(setup: PaymasterSetup): SponsoredFields {
  const data = concat([encodeAbiParameters(timeRange, [stubValidUntil, stubValidAfter]), stubPaymasterSignature]);
  if (setup.version !== '0.6') {
    return {
      version: '0.7',
      paymaster: setup.address,
      paymasterData: data,
      paymasterVerificationGasLimit: paymasterGasLimits.v07.verification,
      paymasterPostOpGasLimit: paymasterGasLimits.v07.postOp,
    };
  }
  return { version: '0.6', paymasterAndData: concat([setup.address, data]) };
}

/** The op with the paymaster fields put in (those of its version). */
export function withPaymasterFields<Op extends AnyUserOperation>(op: Op, fields: SponsoredFields): Op {
  const { version: _version, ...values } = fields;
  return { ...op, ...values };
}

function checkTime(field: string, value: number) {
  if (!Number.isInteger(value) || value < 0 || value > uint48Max)
    throw new PaymasterDataError(field, `must be Unix seconds between 0 and ${uint48Max}, got ${value}`);
}
