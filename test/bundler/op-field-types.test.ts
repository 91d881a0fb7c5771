import { describe, expect, it } from 'vitest';
import { explainAaReason } from '../../src/bundler/rpc-errors.ts';
import { parseUserOperation } from '../../src/bundler/user-operation.ts';

// Fields found wrong by sending them: a number where a 0x string goes was called "missing", a v0.6
// initCode shorter than a factory address went to the simulation (an opaque revert), and a v0.6 op
// with `factory: null` was refused as carrying a v0.7 field.
describe('a UserOperation field of the wrong type or length', () => {
  const v07 = {
    sender: '0x000000000000000000000000000000000000dEaD',
    nonce: '0x0',
    callData: '0x',
    callGasLimit: '0x1',
    verificationGasLimit: '0x1',
    preVerificationGas: '0x1',
    maxFeePerGas: '0x1',
    maxPriorityFeePerGas: '0x1',
    signature: '0x',
  };
  const v06 = { ...v07, initCode: '0x', paymasterAndData: '0x' };

  it('a JSON number is -32602 saying it must be a 0x string, not that it is missing', () => {
    for (const [version, op] of [
      ['0.7', v07],
      ['0.6', v06],
    ] as const) {
      expect(() => parseUserOperation(version, { ...op, maxFeePerGas: 1000 })).toThrow(
        expect.objectContaining({
          code: -32602,
          message: 'userOperation.maxFeePerGas must be a 0x hex quantity without leading zeros (a string), got 1000',
          data: { field: 'maxFeePerGas' },
        }),
      );
    }
    expect(() => parseUserOperation('0.7', { ...v07, sender: 5 })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('userOperation.sender must be a 0x address (a string)') }),
    );
    // Absent (or null) is still "missing".
    expect(() => parseUserOperation('0.7', { ...v07, nonce: null })).toThrow(
      expect.objectContaining({ message: 'userOperation.nonce is missing' }),
    );
  });

  it('a v0.6 initCode of 1 to 19 bytes is -32602 naming initCode; 20 bytes and more go on', () => {
    for (const initCode of ['0x12', `0x${'ab'.repeat(19)}`]) {
      expect(() => parseUserOperation('0.6', { ...v06, initCode })).toThrow(
        expect.objectContaining({ code: -32602, data: { field: 'initCode' } }),
      );
    }
    expect(parseUserOperation('0.6', { ...v06, initCode: `0x${'ab'.repeat(20)}` })).toMatchObject({
      initCode: `0x${'ab'.repeat(20)}`,
    });
  });

  it('a v0.6 op with factory or paymaster null is read (null is absent); one with a value is refused', () => {
    expect(parseUserOperation('0.6', { ...v06, factory: null, paymaster: null })).toMatchObject({ initCode: '0x' });
    expect(() => parseUserOperation('0.6', { ...v06, factory: '0x000000000000000000000000000000000000bEEF' })).toThrow(
      expect.objectContaining({ code: -32602, message: expect.stringContaining('userOperation.factory is a v0.7 field') }),
    );
  });

  it("the EntryPoint's AA9x reasons are explained as the EntryPoint means them", () => {
    expect(explainAaReason('AA93 invalid paymasterAndData')).toMatch(/paymasterAndData is too short/);
    expect(explainAaReason('AA91 failed send to beneficiary')).toMatch(/could not pay the beneficiary/);
    expect(explainAaReason('AA96 invalid aggregator')).toMatch(/aggregator is invalid/);
  });
});
