import { encodeAbiParameters, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { RuleEntities } from '../../src/bundler/validation-rule-types.ts';
import { checkStepTrace } from '../../src/bundler/validation-step-trace.ts';

// VerifyingPaymaster v0.6 raises senderNonce[sender] (its own storage, a slot associated with the
// sender) in validation. ERC-7562 allows that while the sender is deployed only when the factory or
// the paymaster itself is staked: the devnet stakes its paymasters for this.
const sender = '0x00000000000000000000000000000000000a11ce';
const paymaster = '0x00000000000000000000000000000000000fee00';
const factory = '0x0000000000000000000000000000000000fac700';
const keccakInput = encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [sender, 1n]);
const senderNonceSlot = keccak256(keccakInput).slice(2);
const trace = {
  ops: [],
  storage: [[paymaster, paymaster, senderNonceSlot, 1, 0] as const],
  keccak: [keccakInput],
  noCode: [],
};
const entities = (staked: { factory: boolean; paymaster: boolean }, deploying = true): RuleEntities => ({
  entryPoint: '0x0000000071727de22e5e9d8baf0edac6f37da032',
  sender,
  factory,
  paymaster,
  deploying,
  staked: { sender: false, ...staked },
});

describe("a paymaster writing its storage of the sender's (ERC-7562 STO-021/022)", () => {
  it('is allowed once the sender exists', () => {
    expect(checkStepTrace(trace, entities({ factory: false, paymaster: false }, false))).toBeUndefined();
  });

  it('while the sender is deployed, only with the factory or the paymaster staked', () => {
    expect(checkStepTrace(trace, entities({ factory: false, paymaster: false }))).toMatchObject({
      entity: 'paymaster',
      rule: 'STO-022',
      opcode: 'SSTORE',
    });
    expect(checkStepTrace(trace, entities({ factory: true, paymaster: false }))).toBeUndefined();
    expect(checkStepTrace(trace, entities({ factory: false, paymaster: true }))).toBeUndefined();
  });
});
