import { describe, expect, it } from 'vitest';
import { parseUserOperation } from '../../src/bundler/user-operation.ts';

// EntryPoint v0.7 and v0.8 pack gas limits and fees two to a word: a value past 128 bits is a -32602
// naming the field, found by sending one (it was a -32603 internal error when the op was encoded).
describe('fields EntryPoint v0.7 and v0.8 pack into 128 bits', () => {
  const op = {
    sender: '0x000000000000000000000000000000000000dEaD',
    nonce: '0x0',
    callData: '0x',
    callGasLimit: '0x1',
    verificationGasLimit: '0x1',
    preVerificationGas: '0x1',
    maxFeePerGas: '0x1',
    maxPriorityFeePerGas: '0x1',
    signature: '0x',
    paymaster: '0x000000000000000000000000000000000000bEEF',
    paymasterVerificationGasLimit: '0x1',
    paymasterPostOpGasLimit: '0x0',
    paymasterData: '0x',
  };
  const over = `0x1${'0'.repeat(32)}`; // 2^128
  const max = `0x${'f'.repeat(32)}`;

  for (const name of [
    'callGasLimit',
    'verificationGasLimit',
    'maxFeePerGas',
    'maxPriorityFeePerGas',
    'paymasterVerificationGasLimit',
    'paymasterPostOpGasLimit',
  ]) {
    it(`refuses ${name} of 2^128 on v0.7 and v0.8, naming it, and takes 2^128 - 1`, () => {
      for (const version of ['0.7', '0.8'] as const) {
        expect(() => parseUserOperation(version, { ...op, [name]: over })).toThrow(
          expect.objectContaining({
            code: -32602,
            message: expect.stringContaining(`userOperation.${name} must fit in 128 bits`),
          }),
        );
        expect(() => parseUserOperation(version, { ...op, [name]: max })).not.toThrow();
      }
    });
  }

  it('leaves v0.6, whose fields are whole words, as it was', () => {
    const { paymaster, paymasterVerificationGasLimit, paymasterPostOpGasLimit, paymasterData, ...v06 } = op;
    expect(parseUserOperation('0.6', { ...v06, callGasLimit: over }).callGasLimit).toBe(1n << 128n);
  });
});
