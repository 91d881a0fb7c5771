import { describe, expect, it } from 'vitest';
import { type BundleRefusal, reputationAfterRefusal } from '../../src/bundler/bundle-blame.ts';

const sender = '0x00000000000000000000000000000000000000a1';
const factory = '0x00000000000000000000000000000000000000f1';
const paymaster = '0x00000000000000000000000000000000000000b1';
const refusal = (reason: string, changes: Partial<BundleRefusal> = {}): BundleRefusal => ({
  reason,
  refusedAlone: false,
  sender,
  factory,
  paymaster,
  staked: { sender: false, factory: false },
  safeMode: true,
  ...changes,
});

describe('ERC-7562 reputation after an op refused while its bundle was built', () => {
  it('fails by itself: the paymaster is not charged with its account or factory (EREP-015), nor with itself beside a staked account (EREP-030); nobody is banned', () => {
    expect(reputationAfterRefusal(refusal('AA23 reverted', { refusedAlone: true }))).toEqual({ unsee: [paymaster] });
    expect(reputationAfterRefusal(refusal('AA13 initCode failed or OOG', { refusedAlone: true }))).toEqual({
      unsee: [paymaster],
    });
    expect(reputationAfterRefusal(refusal('AA31 paymaster deposit too low', { refusedAlone: true }))).toEqual({ unsee: [] });
    expect(
      reputationAfterRefusal(
        refusal('AA31 paymaster deposit too low', { refusedAlone: true, staked: { sender: true, factory: false } }),
      ),
    ).toEqual({ unsee: [paymaster] });
    expect(reputationAfterRefusal(refusal('AA23 reverted', { refusedAlone: true, paymaster: null }))).toEqual({ unsee: [] });
  });

  it('passes alone but breaks the bundle: bans the entity at fault, a staked factory for its account (EREP-020), a staked sender for its paymaster (EREP-030)', () => {
    expect(reputationAfterRefusal(refusal('AA13 initCode failed or OOG'))).toEqual({ unsee: [], crashed: factory });
    expect(reputationAfterRefusal(refusal('AA23 reverted'))).toEqual({ unsee: [], crashed: sender });
    expect(reputationAfterRefusal(refusal('AA23 reverted', { staked: { sender: false, factory: true } }))).toEqual({
      unsee: [],
      crashed: factory,
    });
    expect(reputationAfterRefusal(refusal('AA33 reverted'))).toEqual({ unsee: [], crashed: paymaster });
    expect(reputationAfterRefusal(refusal('AA33 reverted', { staked: { sender: true, factory: false } }))).toEqual({
      unsee: [],
      crashed: sender,
    });
  });

  it('bans nobody for want of funds, in unsafe mode, or for a reason outside validation', () => {
    expect(reputationAfterRefusal(refusal("AA21 didn't pay prefund"))).toEqual({ unsee: [] });
    expect(reputationAfterRefusal(refusal('AA31 paymaster deposit too low'))).toEqual({ unsee: [] });
    expect(reputationAfterRefusal(refusal('AA23 reverted', { safeMode: false }))).toEqual({ unsee: [] });
    expect(reputationAfterRefusal(refusal('AA95 out of gas'))).toEqual({ unsee: [] });
  });
});
