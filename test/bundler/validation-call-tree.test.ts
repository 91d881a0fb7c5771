import { describe, expect, it } from 'vitest';
import { screenBytecode } from '../../src/bundler/bytecode-screen.ts';
import { checkCallTree } from '../../src/bundler/validation-call-tree.ts';

// The quick ERC-7562 check (no node: call trees and prestates as tracers give them); the traced cases
// on a real anvil are in validation-rules.test.ts.
describe('the static bytecode screen', () => {
  it('finds what is reachable from offset 0 and from JUMPDESTs, and skips data after terminators and PUSH data', () => {
    expect([...screenBytecode('0x4200').opcodes]).toEqual(['TIMESTAMP']);
    expect([...screenBytecode('0x00fe42').opcodes]).toEqual([]);
    expect([...screenBytecode('0x005b4200').opcodes]).toEqual(['TIMESTAMP']);
    // 0x42 and 0x5b inside a PUSH2's data are not instructions.
    expect([...screenBytecode('0x615b4200').opcodes]).toEqual([]);
    expect(screenBytecode('0x5af1').gasNotBeforeCall).toBe(false);
    expect(screenBytecode('0x5a5000').gasNotBeforeCall).toBe(true);
  });
});

describe('the quick check from the call tree and the touched state', () => {
  const entryPoint = '0x0000000071727de22e5e9d8baf0edac6f37da032';
  const account = '0x000000000000000000000000000000000000a770';
  const paymaster = '0x000000000000000000000000000000000000beef';
  const other = '0x000000000000000000000000000000000000c0de';
  const entities = {
    entryPoint,
    sender: account,
    paymaster,
    deploying: false,
    staked: { sender: false, factory: false, paymaster: false },
  };
  const clean = '0x600060005260206000f3';
  const tree = (...calls: object[]) => ({
    type: 'CALL',
    from: '0x0000000000000000000000000000000000000000',
    to: entryPoint,
    calls: [{ type: 'CALL', from: entryPoint, to: account, input: '0x19822f7c', calls }],
  });
  const prestate = { [account]: { code: clean }, [other]: { code: clean }, [paymaster]: { code: clean } };
  const check = (root: object, state: object = prestate, staked = entities.staked) =>
    checkCallTree(root as never, state as never, { ...entities, staked }, screenBytecode);

  it('passes the prefund paid to the EntryPoint and a call to ecrecover', () => {
    expect(
      check(
        tree(
          { type: 'STATICCALL', from: account, to: '0x0000000000000000000000000000000000000001' },
          { type: 'CALL', from: account, to: entryPoint, value: '0x10', input: '0x' },
        ),
      ),
    ).toEqual({ kind: 'ok' });
  });
  it('refuses value sent elsewhere, other EntryPoint methods, unknown precompiles, CREATE and calls to empty addresses', () => {
    const rule = (root: object) => {
      const verdict = check(root);
      return verdict.kind === 'violation' ? verdict.violation.rule : verdict.kind;
    };
    expect(rule(tree({ type: 'CALL', from: account, to: other, value: '0x1' }))).toBe('OP-061');
    expect(rule(tree({ type: 'CALL', from: account, to: entryPoint, input: '0x0042' }))).toBe('OP-054');
    expect(rule(tree({ type: 'STATICCALL', from: account, to: '0x000000000000000000000000000000000000000a' }))).toBe('OP-062');
    expect(rule(tree({ type: 'CREATE', from: account, to: other }))).toBe('OP-011');
    expect(rule(tree({ type: 'CALL', from: account, to: '0x000000000000000000000000000000000000dead' }))).toBe('OP-041');
  });
  it("lets the sender's constructor call the EntryPoint's fallback in the factory's phase (OP-053), not the factory itself", () => {
    const factory = '0x000000000000000000000000000000000000fac7';
    const senderCreator = '0x0000000000000000000000000000000000005c00';
    const deploying = (...calls: object[]) => ({
      type: 'CALL',
      from: '0x0000000000000000000000000000000000000000',
      to: entryPoint,
      calls: [
        {
          type: 'CALL',
          from: entryPoint,
          to: senderCreator,
          calls: [{ type: 'CALL', from: senderCreator, to: factory, calls }],
        },
      ],
    });
    const created = { type: 'CREATE2', from: factory, to: account, input: clean, output: clean };
    const withFactory = { ...entities, factory, deploying: true };
    const state = { ...prestate, [factory]: { code: clean }, [senderCreator]: { code: clean } };
    const verdict = (root: object) => checkCallTree(root as never, state as never, withFactory, screenBytecode);
    const constructorCall = { type: 'CALL', from: account, to: entryPoint, input: '0x', value: '0x0' };
    expect(verdict(deploying({ ...created, calls: [constructorCall] }))).toEqual({ kind: 'ok' });
    expect(verdict(deploying(created, { type: 'CALL', from: factory, to: entryPoint, input: '0x' }))).toMatchObject({
      kind: 'violation',
      violation: { rule: 'OP-054', entity: 'factory' },
    });
  });
  it('refuses a frame halted by an unassigned opcode (OP-013), as anvil and geth word it, not the designated INVALID', () => {
    const halted = (error: string) => check(tree({ type: 'STATICCALL', from: account, to: other, error }));
    expect(halted('invalid opcode')).toMatchObject({ kind: 'violation', violation: { rule: 'OP-013', entity: 'account' } });
    expect(halted('invalid opcode: opcode 0xc0 not defined')).toMatchObject({ kind: 'violation', violation: { rule: 'OP-013' } });
    expect(halted('invalid opcode: INVALID')).toEqual({ kind: 'ok' });
    expect(halted('execution reverted')).toEqual({ kind: 'ok' });
  });
  it("asks for the step trace when code could reach a banned opcode or storage isn't the sender's", () => {
    // Code alone leaves only the opcodes undecided (the opcode-only step list can clear it); storage needs the step tracer.
    expect(check(tree(), { ...prestate, [account]: { code: '0x4200' } })).toMatchObject({ kind: 'trace', opcodesOnly: true });
    expect(check(tree(), { ...prestate, [other]: { code: clean, storage: { '0x05': '0x01' } } })).toMatchObject({
      kind: 'trace',
      opcodesOnly: false,
    });
    expect(
      check(tree(), { ...prestate, [account]: { code: '0x4200' }, [other]: { code: clean, storage: { '0x05': '0x01' } } }),
    ).toMatchObject({ kind: 'trace', opcodesOnly: false });
    expect(check(tree(), { ...prestate, [account]: { code: clean, storage: { '0x05': '0x01' } } })).toEqual({ kind: 'ok' });
    // A staked paymaster's own storage is allowed (STO-031); an unstaked one's needs the trace.
    const paymasterStorage = { ...prestate, [paymaster]: { code: clean, storage: { '0x01': '0x01' } } };
    expect(check(tree(), paymasterStorage)).toMatchObject({ kind: 'trace', opcodesOnly: false });
    expect(check(tree(), paymasterStorage, { sender: false, factory: false, paymaster: true })).toEqual({ kind: 'ok' });
  });
});
