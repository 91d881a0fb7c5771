import { describe, expect, it } from 'vitest';
import type { CallFrame } from '../../src/bundler/validation-call-tree.ts';
import { admissionViolation, callRulesViolation } from '../../src/sponsorship/policy-check.ts';
import { parsePolicyRules } from '../../src/sponsorship/policy-rules.ts';
import { reachedCallsOf } from '../../src/sponsorship/reached-calls.ts';

const entryPoint = '0x0000000071727de22e5e9d8baf0edac6f37da032';
const sender = '0x000000000000000000000000000000000000a770';
const implementation = '0x00000000000000000000000000000000000011e0';
const router = '0x000000000000000000000000000000000000c0de';
const pool = '0x000000000000000000000000000000000000beef';
const library = '0x0000000000000000000000000000000000001100';
const oracle = '0x000000000000000000000000000000000000fee0';
const swap = '0x12345678';
const pay = '0x9abcdef0';

const frame = (type: string, from: string, to: string, input = '0x', calls: CallFrame[] = []): CallFrame => ({
  type,
  from,
  to,
  input,
  calls,
});

/**
 * A proxy account (DELEGATECALL to its implementation) calling a router, which reads an oracle
 * (STATICCALL), runs a library as itself (DELEGATECALL), calls a pool, and the pool calls back into the
 * account, whose callback pays the pool.
 */
const execution = frame('CALL', entryPoint, sender, '0xb61d27f6', [
  frame('DELEGATECALL', sender, implementation, '0xb61d27f6', [
    frame('CALL', sender, router, `${swap}00`, [
      frame('STATICCALL', router, oracle, '0xfeaf968c', [frame('CALL', oracle, pool, pay)]),
      frame('DELEGATECALL', router, library, '0xaaaaaaaa', [
        frame('CALL', router, pool, swap, [frame('CALL', pool, sender, '0xfa461e33', [frame('CALL', sender, pool, pay)])]),
      ]),
    ]),
  ]),
]);

describe('the calls an op execution reaches', () => {
  it('counts calls into other addresses, walks delegatecalls as the caller, leaves reads and calls back into the account out', () => {
    expect(reachedCallsOf(execution, sender)).toEqual([
      { to: router, from: sender, selector: swap, creates: false },
      { to: pool, from: router, selector: swap, creates: false },
      { to: pool, from: sender, selector: pay, creates: false },
    ]);
  });

  it('counts a contract creation and a plain transfer, neither with a method', () => {
    const created = '0x00000000000000000000000000000000000c4ea7';
    const tree = frame('CALL', entryPoint, sender, '0x', [
      frame('CREATE2', sender, created, '0x6080', [frame('CALL', created, pool, '0x')]),
    ]);
    expect(reachedCallsOf(tree, sender)).toEqual([
      { to: created, from: sender, selector: null, creates: true },
      { to: pool, from: created, selector: null, creates: false },
    ]);
  });
});

describe("a policy's call rules on the traced execution", () => {
  const traced = { kind: 'traced' as const, calls: reachedCallsOf(execution, sender) };
  it('refuses a contract or method reached below an allowed one, naming it and its caller', () => {
    expect(callRulesViolation({ allowedContracts: [router] }, traced)).toBe(
      `allowed_contracts: the op's execution calls ${swap} on ${pool} (from ${router}), which this policy does not sponsor`,
    );
    expect(callRulesViolation({ allowedContracts: [router, pool] }, traced)).toBeUndefined();
    expect(callRulesViolation({ allowedMethods: [swap] }, traced)).toBe(
      `allowed_methods: the op's execution calls ${pay} on ${pool} (from ${sender}), which is no method this policy sponsors`,
    );
    expect(callRulesViolation({ allowedMethods: [swap, pay] }, traced)).toBeUndefined();
  });

  it('refuses an execution that calls nothing, and one the node could not trace, saying so', () => {
    expect(callRulesViolation({ allowedContracts: [router] }, { kind: 'traced', calls: [] })).toMatch(
      /^allowed_contracts: the op's execution calls nothing/,
    );
    expect(
      callRulesViolation(
        { allowedMethods: [swap] },
        { kind: 'untraceable', reason: 'the node of ethereum/x does not trace calls' },
      ),
    ).toBe(
      'allowed_methods cannot be enforced: the node of ethereum/x does not trace calls; ops under a policy that names contracts or methods are refused there',
    );
    expect(callRulesViolation({ allowedContracts: [router] }, undefined)).toMatch(/was not traced/);
    expect(callRulesViolation({ maxOps: 3 }, undefined)).toBeUndefined();
  });
});

describe('allowed_factories', () => {
  const factory = '0x91e60e0613810449d098b0b5ec8b51a0fe8c8985';
  const facts = { nowS: 1_800_000_000, sender, calls: undefined };
  it('refuses an op deploying its sender with another factory; an op deploying nothing is not its business', () => {
    expect(admissionViolation({ allowedFactories: [factory] }, { ...facts, factory })).toBeUndefined();
    expect(admissionViolation({ allowedFactories: [factory] }, { ...facts, factory: pool })).toBe(
      `allowed_factories: the op deploys its sender with the factory ${pool}, which this policy does not sponsor`,
    );
    expect(admissionViolation({ allowedFactories: [factory] }, { ...facts, factory: null })).toBeUndefined();
  });

  it('is a rule of addresses, not empty, its 400 naming the entry', () => {
    expect(parsePolicyRules({ allowed_factories: ['0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985'] }).allowed_factories).toEqual([
      factory,
    ]);
    expect(() => parsePolicyRules({ allowed_factories: [factory, '0x1234'] })).toThrow(
      "invalid parameter 'rules.allowed_factories[1]': must be a 0x address of 40 hex digits",
    );
    expect(() => parsePolicyRules({ allowed_factories: [] })).toThrow(/'rules.allowed_factories': must not be empty/);
  });
});
