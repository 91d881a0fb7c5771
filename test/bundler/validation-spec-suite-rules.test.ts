import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { screenBytecode } from '../../src/bundler/bytecode-screen.ts';
import { checkCallTree } from '../../src/bundler/validation-call-tree.ts';
import { createAllowed } from '../../src/bundler/validation-create-rules.ts';
import { checkValidationRules, paymasterContextNeedsStake } from '../../src/bundler/validation-rules.ts';
import { checkStepTrace, type StepTrace } from '../../src/bundler/validation-step-trace.ts';

// ERC-7562 rules the ERC-4337 bundler spec tests (eth-infinitism/bundler-spec-tests) found broken:
// CREATE by the sender while it is deployed (OP-032, EREP-060/061), EXTCODE* on an address without
// code (OP-041) or on the EntryPoint (OP-054). Pure: call trees, prestates and step traces as the
// node's tracers give them.
const entryPoint = '0x4337084d9e255ff0702461cf8895ce9e3b5ff108';
const sender = '0x000000000000000000000000000000000000a770';
const factory = '0x000000000000000000000000000000000000fac7';
const senderCreator = '0x000000000000000000000000000000000000c4ea';
const utility = '0x000000000000000000000000000000000000d011';
const created = '0x000000000000000000000000000000000000c0de';
const unstaked = { sender: false, factory: false, paymaster: false };
const factoryStaked = { ...unstaked, factory: true };
const deploying = { entryPoint, sender, factory, deploying: true, staked: unstaked };

describe('CREATE and CREATE2 while the sender is deployed', () => {
  it('lets the sender itself CREATE when the op has a factory, and a staked factory (or the sender) CREATE2 too', () => {
    expect(createAllowed('CREATE', sender, true, deploying)).toBe(true); // OP-032, in its constructor
    expect(createAllowed('CREATE', sender, false, deploying)).toBe(true); // OP-032, in validateUserOp
    expect(createAllowed('CREATE', sender, false, { ...deploying, deploying: false })).toBe(false);
    expect(createAllowed('CREATE2', sender, false, deploying)).toBe(false);
    expect(createAllowed('CREATE2', sender, false, { ...deploying, staked: factoryStaked })).toBe(true); // EREP-060
    expect(createAllowed('CREATE', factory, true, { ...deploying, staked: factoryStaked })).toBe(true);
    expect(createAllowed('CREATE', factory, true, deploying)).toBe(false);
    // A utility contract: only in a staked factory's call, and only CREATE (EREP-061), never in the account's.
    expect(createAllowed('CREATE', utility, true, { ...deploying, staked: factoryStaked })).toBe(true);
    expect(createAllowed('CREATE2', utility, true, { ...deploying, staked: factoryStaked })).toBe(false);
    expect(createAllowed('CREATE', utility, false, { ...deploying, staked: factoryStaked })).toBe(false);
  });

  const clean = '0x600060005260206000f3';
  const deployTree = (validationCalls: object[]) => ({
    type: 'CALL',
    from: '0x0000000000000000000000000000000000000000',
    to: entryPoint,
    calls: [
      {
        type: 'CALL',
        from: entryPoint,
        to: senderCreator,
        calls: [
          {
            type: 'CALL',
            from: senderCreator,
            to: factory,
            calls: [
              {
                type: 'CREATE2',
                from: factory,
                to: sender,
                input: clean,
                output: clean,
                calls: [{ type: 'CREATE', from: sender, to: created, input: clean, output: clean }],
              },
            ],
          },
        ],
      },
      { type: 'CALL', from: entryPoint, to: sender, input: '0x19822f7c', calls: validationCalls },
    ],
  });
  const prestate = { [factory]: { code: clean }, [senderCreator]: { code: clean }, [utility]: { code: clean } };
  const verdict = (root: object, staked = unstaked) =>
    checkCallTree(root as never, prestate as never, { ...deploying, staked }, screenBytecode);

  it('passes the sender creating a contract in its constructor and in its validation; refuses one a utility creates', () => {
    expect(verdict(deployTree([{ type: 'CREATE', from: sender, to: created, input: clean, output: clean }]))).toEqual({
      kind: 'ok',
    });
    const nested = deployTree([
      { type: 'CALL', from: sender, to: utility, calls: [{ type: 'CREATE', from: utility, to: created, input: clean }] },
    ]);
    expect(verdict(nested)).toMatchObject({
      kind: 'violation',
      violation: { entity: 'account', opcode: 'CREATE', rule: 'OP-011' },
    });
    expect(verdict(nested, factoryStaked)).toMatchObject({
      kind: 'violation',
      violation: { entity: 'account', opcode: 'CREATE' },
    });
  });

  it('refuses the sender CREATE2 with an unstaked factory and passes it with a staked one', () => {
    const tree = deployTree([{ type: 'CREATE2', from: sender, to: created, input: clean, output: clean }]);
    expect(verdict(tree)).toMatchObject({
      kind: 'violation',
      violation: { entity: 'account', opcode: 'CREATE2', rule: 'OP-031' },
    });
    expect(verdict(tree, factoryStaked)).toEqual({ kind: 'ok' });
  });

  it('judges a traced CREATE by the contract that ran it', () => {
    const trace = (creator: string): StepTrace => ({ ops: [[sender, 'CREATE', creator]], storage: [], keccak: [], noCode: [] });
    expect(checkStepTrace(trace(sender), deploying)).toBeUndefined();
    expect(checkStepTrace(trace(utility), deploying)).toMatchObject({ entity: 'account', opcode: 'CREATE', rule: 'OP-011' });
  });
});

describe('EXTCODE* in validation', () => {
  it('screens EXTCODE*, telling an existence check (EXTCODESIZE ISZERO) from other reads', () => {
    expect(screenBytecode('0x3b1500').extcode).toBe('sizeIsZero');
    expect(screenBytecode('0x3b5000').extcode).toBe('other');
    expect(screenBytecode('0x3f00').extcode).toBe('other');
    expect(screenBytecode('0x3c00').extcode).toBe('other');
    expect(screenBytecode('0x600000').extcode).toBe('none');
  });

  const account = { entryPoint, sender, deploying: false, staked: unstaked };
  const tree = (code: string) => ({
    root: {
      type: 'CALL',
      from: '0x0000000000000000000000000000000000000000',
      to: entryPoint,
      calls: [{ type: 'CALL', from: entryPoint, to: sender, input: '0x19822f7c' }],
    },
    prestate: { [sender]: { code }, [entryPoint]: { code: '0x00' } },
  });

  it('leaves an EXTCODE* to a later pass (the opcode pass clears it only if none ran), and an existence check only when a touched address has no code', () => {
    const read = tree('0x3f5000');
    expect(checkCallTree(read.root as never, read.prestate as never, account, screenBytecode)).toMatchObject({
      kind: 'trace',
      opcodesOnly: true,
      codeReads: true,
    });
    const exists = tree('0x3b1500');
    expect(checkCallTree(exists.root as never, exists.prestate as never, account, screenBytecode)).toEqual({ kind: 'ok' });
    const withCodeless = { ...exists.prestate, '0x000000000000000000000000000000000000dead': { balance: '0x0' } };
    expect(checkCallTree(exists.root as never, withCodeless as never, account, screenBytecode)).toMatchObject({
      kind: 'trace',
      codeReads: true,
    });
    // Storage of another contract as well: only the step tracer can judge it.
    const withStorage = { ...read.prestate, [utility]: { code: '0x00', storage: { '0x01': '0x02' } } };
    expect(checkCallTree(read.root as never, withStorage as never, account, screenBytecode)).toMatchObject({
      kind: 'trace',
      opcodesOnly: false,
    });
  });

  it('refuses EXTCODE* on an address without code (OP-041) and on the EntryPoint (OP-054)', () => {
    const empty: StepTrace = { ops: [], storage: [], keccak: [], noCode: [] };
    expect(checkStepTrace({ ...empty, noCode: [[sender, 'EXTCODEHASH', utility]] }, account)).toMatchObject({
      entity: 'account',
      rule: 'OP-041',
    });
    expect(checkStepTrace({ ...empty, entryPointCode: [[sender, 'EXTCODESIZE']] }, account)).toMatchObject({
      entity: 'account',
      opcode: 'EXTCODESIZE',
      rule: 'OP-054',
    });
    expect(checkStepTrace(empty, account)).toBeUndefined();
  });
});

describe('a paymaster context (EREP-050)', () => {
  const traces = (tree: object) => ({
    trace: async () => ({}),
    call: { to: entryPoint as `0x${string}`, data: '0x' as const },
    overrides: {},
    tree: Promise.resolve(tree as never),
    prestate: Promise.resolve({} as never),
    overridden: [],
    passKey: `${entryPoint}|${sender}`,
  });
  const root = { type: 'CALL', from: '0x0000000000000000000000000000000000000000', to: entryPoint, calls: [] };
  const paymaster = '0x000000000000000000000000000000000000beef';
  const withPaymaster = { entryPoint, sender, paymaster, deploying: false, staked: unstaked };

  it('refuses a context from an unstaked paymaster, and takes one from a staked paymaster', async () => {
    await expect(checkValidationRules(traces(root), { ...withPaymaster, paymasterContext: true })).rejects.toMatchObject({
      code: -32502,
      message: expect.stringContaining('EREP-050'),
      data: { entity: 'paymaster', rule: 'EREP-050' },
    });
    await expect(
      checkValidationRules(traces(root), { ...withPaymaster, paymasterContext: true, staked: { ...unstaked, paymaster: true } }),
    ).resolves.toMatchObject({ storageOwners: [] });
    await expect(checkValidationRules(traces(root), withPaymaster)).resolves.toMatchObject({ storageOwners: [] });
  });

  it('is a rule of EntryPoint v0.6 and v0.8, not of v0.7 (whose EntryPoint calls postOp once)', () => {
    expect(paymasterContextNeedsStake('0.8')).toBe(true);
    expect(paymasterContextNeedsStake('0.6')).toBe(true);
    expect(paymasterContextNeedsStake('0.7')).toBe(false);
  });
});

describe("the sender's storage while a staked factory deploys it (STO-022)", () => {
  const paymaster = '0x000000000000000000000000000000000000beef';
  const token = '0x000000000000000000000000000000000000c0de';
  const senderKey = `0x${sender.slice(2).padStart(64, '0')}${'0'.repeat(64)}` as const;
  const balanceSlot = BigInt(keccak256(senderKey)).toString(16);
  const reads = (by: string): StepTrace => ({
    ops: [],
    storage: [[by, token, balanceSlot, 0, 0]],
    keccak: [senderKey],
    noCode: [],
  });
  const staked = { ...deploying, paymaster, staked: factoryStaked };

  it("lets any entity use it on EntryPoint v0.8, only the account on v0.7 (each version's ERC-7562)", () => {
    expect(checkStepTrace(reads(paymaster), { ...staked, entryPointVersion: '0.8' })).toBeUndefined();
    expect(checkStepTrace(reads(paymaster), { ...staked, entryPointVersion: '0.7' })).toMatchObject({
      entity: 'paymaster',
      rule: 'STO-022',
    });
    expect(checkStepTrace(reads(sender), { ...staked, entryPointVersion: '0.7' })).toBeUndefined();
  });
});
