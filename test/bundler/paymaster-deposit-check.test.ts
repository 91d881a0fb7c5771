import type { UserOperation } from 'viem/account-abstraction';
import { describe, expect, it } from 'vitest';
import { maxCostOf } from '../../src/bundler/op-max-cost.ts';
import { pendingDepositError } from '../../src/bundler/paymaster-deposit-check.ts';

const common = {
  sender: '0x1111111111111111111111111111111111111111',
  nonce: 0n,
  callData: '0x',
  callGasLimit: 10n,
  verificationGasLimit: 100n,
  preVerificationGas: 1_000n,
  maxFeePerGas: 3n,
  maxPriorityFeePerGas: 1n,
  signature: '0x',
} as const;

describe('what an op may cost its paymaster', () => {
  it("is the EntryPoint's prefund: v0.7 every limit at maxFeePerGas", () => {
    const op = { ...common, paymaster: common.sender, paymasterVerificationGasLimit: 20n, paymasterPostOpGasLimit: 5n };
    expect(maxCostOf(op as UserOperation<'0.7'>, '0.7')).toBe((10n + 100n + 20n + 5n + 1_000n) * 3n);
  });

  it('v0.6 counts verificationGasLimit three times with a paymaster (its postOp), once without', () => {
    const op = { ...common, initCode: '0x', paymasterAndData: common.sender } as UserOperation<'0.6'>;
    expect(maxCostOf(op, '0.6')).toBe((10n + 300n + 1_000n) * 3n);
    expect(maxCostOf({ ...op, paymasterAndData: '0x' }, '0.6')).toBe((10n + 100n + 1_000n) * 3n);
  });

  it('refuses with -32508 only past the deposit, not counting the op it replaces', () => {
    const state = { deposit: 100n, pending: [{ hash: '0xa', cost: 60n }] };
    expect(pendingDepositError(state, { cost: 40n, paymaster: '0xp' })).toBeUndefined();
    expect(pendingDepositError(state, { cost: 41n, paymaster: '0xp' })).toMatchObject({
      code: -32508,
      data: { reason: 'AA31 paymaster deposit too low', pending: 1 },
    });
    expect(pendingDepositError(state, { cost: 100n, paymaster: '0xp', replacing: '0xa' })).toBeUndefined();
  });
});
