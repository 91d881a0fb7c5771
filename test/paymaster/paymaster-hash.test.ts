import { type Address, concat, createPublicClient, type Hex, http, pad, toHex } from 'viem';
import {
  entryPoint06Address,
  entryPoint07Address,
  entryPoint08Address,
  toPackedUserOperation,
  type UserOperation,
} from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { installVerifyingPaymasters } from '../../src/paymaster/devnet-paymasters.ts';
import { verifyingPaymasterHashV06, verifyingPaymasterHashV07 } from '../../src/paymaster/paymaster-hash.ts';
import { verifyingPaymasterV06Abi, verifyingPaymasterV07Abi } from '../../src/paymaster/verifying-paymaster-abi.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { devnetPaymasters, sponsorAddress } from './support.ts';

const chainId = 31337;
const sender: Address = '0x1234567890AbcdEF1234567890aBcdef12345678';
const bytes = (length: number, seed: number): Hex =>
  toHex(Uint8Array.from({ length }, (_, index) => (index * 31 + seed) % 256)) as Hex;

/** Ops of different shapes: with and without initCode, callData of lengths that are and are not whole words. */
const shapes = [
  { name: 'no initCode, short callData', initCode: '0x' as Hex, callData: bytes(4, 1) },
  {
    name: 'initCode and a 100-byte callData',
    initCode: concat([erc4337Addresses.v06.factory, bytes(68, 2)]),
    callData: bytes(100, 3),
  },
  { name: 'empty callData', initCode: '0x' as Hex, callData: '0x' as Hex },
  { name: 'a 3000-byte callData', initCode: '0x' as Hex, callData: bytes(3000, 4) },
];
const ranges = [
  { validUntil: 0, validAfter: 0 },
  { validUntil: 1_900_000_000, validAfter: 1_700_000_000 },
  { validUntil: 2 ** 48 - 1, validAfter: 0x01010101 },
];

describe("the off-chain paymaster hash equals the contract's getHash", () => {
  let anvil: Devnet;
  const client = () => createPublicClient({ transport: http(anvil.url) });

  beforeAll(async () => {
    anvil = await startTestAnvil();
    await installErc4337Contracts(anvil.url);
    await installVerifyingPaymasters(anvil.url, [
      { version: '0.6', entryPoint: entryPoint06Address, signer: sponsorAddress },
      { version: '0.7', entryPoint: entryPoint07Address, signer: sponsorAddress },
      { version: '0.8', entryPoint: entryPoint08Address, signer: sponsorAddress },
    ]);
  });
  afterAll(() => anvil?.stop());

  it.each(shapes.flatMap((shape) => (['v07', 'v08'] as const).map((version) => ({ ...shape, version }))))(
    '$version: $name',
    async ({ initCode, callData, version }) => {
      const paymaster = devnetPaymasters[version];
      const op: UserOperation<'0.7'> = {
        sender,
        nonce: (5n << 64n) | 7n,
        ...(initCode === '0x' ? {} : { factory: erc4337Addresses.v07.factory, factoryData: `0x${initCode.slice(42)}` as Hex }),
        callData,
        callGasLimit: 123_456n,
        verificationGasLimit: 654_321n,
        preVerificationGas: 50_001n,
        maxFeePerGas: 30_000_000_000n,
        maxPriorityFeePerGas: 1_500_000_000n,
        signature: bytes(65, 9),
      };
      for (const range of ranges) {
        const limits = { paymasterVerificationGasLimit: 31_000n, paymasterPostOpGasLimit: 7n };
        const packed = toPackedUserOperation({
          ...op,
          paymaster: paymaster,
          ...limits,
          paymasterData: bytes(129, 5),
        });
        const onChain = await client().readContract({
          address: paymaster,
          abi: verifyingPaymasterV07Abi,
          functionName: 'getHash',
          args: [packed, range.validUntil, range.validAfter],
        });
        expect(verifyingPaymasterHashV07({ op, paymaster: paymaster, chainId, ...range, ...limits })).toBe(onChain);
      }
    },
  );

  it.each(shapes)('v0.6: $name', async ({ initCode, callData }) => {
    const op: UserOperation<'0.6'> = {
      sender,
      nonce: 42n,
      initCode,
      callData,
      callGasLimit: 123_456n,
      verificationGasLimit: 654_321n,
      preVerificationGas: 50_001n,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_500_000_000n,
      paymasterAndData: '0x',
      signature: bytes(65, 9),
    };
    const senderNonce = await client().readContract({
      address: devnetPaymasters.v06,
      abi: verifyingPaymasterV06Abi,
      functionName: 'senderNonce',
      args: [sender],
    });
    for (const range of ranges) {
      // What the contract hashes depends on the length of paymasterAndData, not on its content.
      const paymasterAndData = concat([devnetPaymasters.v06, bytes(64, 6), bytes(65, 7)]);
      const onChain = await client().readContract({
        address: devnetPaymasters.v06,
        abi: verifyingPaymasterV06Abi,
        functionName: 'getHash',
        args: [{ ...op, initCode, paymasterAndData }, range.validUntil, range.validAfter],
      });
      const offChain = verifyingPaymasterHashV06({
        op,
        paymaster: devnetPaymasters.v06,
        chainId,
        ...range,
        senderNonce,
        paymasterAndDataLength: 149,
      });
      expect(offChain).toBe(onChain);
      // A different nonce of the paymaster's (the next op of this sender) gives another hash.
      expect(
        verifyingPaymasterHashV06({
          op,
          paymaster: devnetPaymasters.v06,
          chainId,
          ...range,
          senderNonce: senderNonce + 1n,
          paymasterAndDataLength: 149,
        }),
      ).not.toBe(onChain);
    }
  });

  it('each signed field changes the hash', () => {
    const op: UserOperation<'0.7'> = {
      sender,
      nonce: 0n,
      callData: '0x',
      callGasLimit: 1n,
      verificationGasLimit: 2n,
      preVerificationGas: 3n,
      maxFeePerGas: 4n,
      maxPriorityFeePerGas: 5n,
      signature: '0x',
    };
    const base = { op, paymaster: devnetPaymasters.v07, chainId, validUntil: 10, validAfter: 1 };
    const limits = { paymasterVerificationGasLimit: 6n, paymasterPostOpGasLimit: 0n };
    const hash = verifyingPaymasterHashV07({ ...base, ...limits });
    const variants = [
      { ...base, op: { ...op, nonce: 1n } },
      { ...base, op: { ...op, callData: '0x00' as Hex } },
      { ...base, op: { ...op, maxFeePerGas: 40n } },
      { ...base, op: { ...op, preVerificationGas: 30n } },
      { ...base, chainId: 1 },
      { ...base, paymaster: pad('0x01', { size: 20 }) },
      { ...base, validUntil: 11 },
      { ...base, validAfter: 2 },
    ];
    for (const variant of variants) expect(verifyingPaymasterHashV07({ ...variant, ...limits })).not.toBe(hash);
    expect(verifyingPaymasterHashV07({ ...base, ...limits, paymasterVerificationGasLimit: 7n })).not.toBe(hash);
    expect(verifyingPaymasterHashV07({ ...base, ...limits, op: { ...op, signature: '0xff' } })).toBe(hash);
  });
});
