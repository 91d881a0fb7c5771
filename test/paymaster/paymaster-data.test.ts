import { type Hex, hexToBigInt, keccak256, recoverAddress, size, slice, stringToHex } from 'viem';
import { entryPoint06Address, entryPoint07Address, type UserOperation } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  PaymasterDataError,
  paymasterGasLimits,
  sponsoredPaymasterFields,
  stubPaymasterFields,
  stubPaymasterSignature,
  withPaymasterFields,
} from '../../src/paymaster/paymaster-data.ts';
import { verifyingPaymasterHashV07 } from '../../src/paymaster/paymaster-hash.ts';
import type { PaymasterSetup } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { devnetPaymasters } from './support.ts';

const signer = privateKeyToAccount(devnetSponsorKey);
const setups: Record<'0.6' | '0.7', PaymasterSetup> = {
  '0.6': { version: '0.6', entryPoint: entryPoint06Address, address: devnetPaymasters.v06, signer },
  '0.7': { version: '0.7', entryPoint: entryPoint07Address, address: devnetPaymasters.v07, signer },
};
const common = {
  sender: '0x00000000000000000000000000000000000a11ce',
  nonce: 3n,
  callData: '0xb61d27f6',
  callGasLimit: 50_000n,
  verificationGasLimit: 90_000n,
  preVerificationGas: 48_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  signature: '0x',
} as const;
const opV07: UserOperation<'0.7'> = { ...common };
const opV06: UserOperation<'0.6'> = { ...common, initCode: '0x', paymasterAndData: '0x' };
const secp256k1HalfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const byteLength = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? size(value as Hex) : value]));

describe('paymaster fields', () => {
  it('v0.7: the range and the EIP-191 signature of getHash, with the gas limits it signed', async () => {
    const fields = await sponsoredPaymasterFields({
      setup: setups['0.7'],
      chainId: 31337,
      op: opV07,
      validUntil: 2_000_000_000,
      validAfter: 5,
    });
    if (fields.version !== '0.7') throw new Error('v0.7 fields expected');
    expect(fields).toMatchObject({
      paymaster: devnetPaymasters.v07,
      paymasterVerificationGasLimit: paymasterGasLimits.v07.verification,
      paymasterPostOpGasLimit: 0n,
    });
    expect(size(fields.paymasterData)).toBe(64 + 65);
    expect(hexToBigInt(slice(fields.paymasterData, 0, 32))).toBe(2_000_000_000n);
    expect(hexToBigInt(slice(fields.paymasterData, 32, 64))).toBe(5n);
    const hash = verifyingPaymasterHashV07({
      op: opV07,
      paymaster: devnetPaymasters.v07,
      chainId: 31337,
      validUntil: 2_000_000_000,
      validAfter: 5,
      paymasterVerificationGasLimit: fields.paymasterVerificationGasLimit,
      paymasterPostOpGasLimit: 0n,
    });
    const signature = slice(fields.paymasterData, 64);
    expect(await signer.signMessage({ message: { raw: hash } })).toBe(signature);
    // The op's own paymaster fields do not matter: they are replaced.
    const again = await sponsoredPaymasterFields({
      setup: setups['0.7'],
      chainId: 31337,
      op: { ...opV07, paymaster: devnetPaymasters.v06, paymasterData: '0x12', paymasterVerificationGasLimit: 1n },
      validUntil: 2_000_000_000,
      validAfter: 5,
    });
    expect(again).toEqual(fields);
    expect(withPaymasterFields(opV07, fields)).toMatchObject({
      ...opV07,
      paymasterData: fields.paymasterData,
      paymaster: devnetPaymasters.v07,
    });
  });

  it('v0.6: paymaster ‖ range ‖ signature; the paymaster nonce is required and signed', async () => {
    await expect(
      sponsoredPaymasterFields({ setup: setups['0.6'], chainId: 31337, op: opV06, validUntil: 0, validAfter: 0 }),
    ).rejects.toThrow(PaymasterDataError);
    const fields = await sponsoredPaymasterFields({
      setup: setups['0.6'],
      chainId: 31337,
      op: opV06,
      validUntil: 0,
      validAfter: 0,
      senderNonce: 0n,
    });
    if (fields.version !== '0.6') throw new Error('v0.6 fields expected');
    expect(size(fields.paymasterAndData)).toBe(20 + 64 + 65);
    expect(slice(fields.paymasterAndData, 0, 20).toLowerCase()).toBe(devnetPaymasters.v06.toLowerCase());
    const next = await sponsoredPaymasterFields({
      setup: setups['0.6'],
      chainId: 31337,
      op: opV06,
      validUntil: 0,
      validAfter: 0,
      senderNonce: 1n,
    });
    expect(next).not.toEqual(fields);
  });

  it('refuses times that are not uint48 Unix seconds, and a start after the end', async () => {
    const sign = (validUntil: number, validAfter: number) =>
      sponsoredPaymasterFields({ setup: setups['0.7'], chainId: 1, op: opV07, validUntil, validAfter });
    await expect(sign(-1, 0)).rejects.toThrow('validUntil: must be Unix seconds');
    await expect(sign(2 ** 48, 0)).rejects.toThrow('validUntil');
    await expect(sign(10, 1.5)).rejects.toThrow('validAfter');
    await expect(sign(10, 11)).rejects.toThrow('validAfter: is after validUntil (10)');
    await expect(sign(0, 11)).resolves.toMatchObject({ version: '0.7' });
  });

  it.each(['0.7', '0.6'] as const)('v%s stub: the real length and the same gas limits', async (version) => {
    const stub = stubPaymasterFields(setups[version]);
    const real = await sponsoredPaymasterFields({
      setup: setups[version],
      chainId: 31337,
      op: version === '0.7' ? opV07 : opV06,
      validUntil: Math.floor(Date.now() / 1000) + 600,
      validAfter: Math.floor(Date.now() / 1000),
      senderNonce: 0n,
    });
    expect(byteLength(stub)).toEqual(byteLength(real));
    const data = stub.version === '0.7' ? stub.paymasterData : slice(stub.paymasterAndData, 20);
    // validUntil with all six bytes non-zero, validAfter in the past.
    expect(hexToBigInt(slice(data, 0, 32))).toBe(2n ** 48n - 1n);
    expect(Number(hexToBigInt(slice(data, 32, 64)))).toBeLessThan(Date.now() / 1000);
    expect(slice(data, 64)).toBe(stubPaymasterSignature);
  });

  it('the stub signature is well formed, all non-zero bytes, and recovers to someone else', async () => {
    expect(size(stubPaymasterSignature)).toBe(65);
    expect(stubPaymasterSignature.slice(2).match(/../g)?.includes('00')).toBe(false);
    const s = hexToBigInt(slice(stubPaymasterSignature, 32, 64));
    expect(s).toBeLessThanOrEqual(secp256k1HalfOrder);
    expect([27, 28]).toContain(Number(hexToBigInt(slice(stubPaymasterSignature, 64))));
    for (const text of ['a', 'b', 'c']) {
      const recovered = await recoverAddress({ hash: keccak256(stringToHex(text)), signature: stubPaymasterSignature });
      expect(recovered).not.toBe(signer.address);
    }
  });
});
