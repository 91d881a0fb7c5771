import { describe, expect, it } from 'vitest';
import type { CallFrame } from '../../src/bundler/validation-call-tree.ts';
import { codeReadOutsideEntryPoint } from '../../src/bundler/validation-step-frames.ts';

const entryPoint = '0x0000000071727de22e5e9d8baf0edac6f37da032';
const sender = '0x000000000000000000000000000000000000b001';
const other = '0x000000000000000000000000000000000000d001';
const withCode = new Set([entryPoint, sender, other]);
const hasCode = (address: string) => withCode.has(address.toLowerCase());
const steps = (...list: [string, number][]) => list.map(([op, depth]) => ({ op, depth }));
const frame = (to: string, calls: CallFrame[] = [], extra: Partial<CallFrame> = {}): CallFrame => ({
  type: 'CALL',
  from: entryPoint,
  to,
  gasUsed: '0x100',
  calls,
  ...extra,
});

describe('which frame an EXTCODE* step of the opcode-only list ran in', () => {
  // The simulation (depth 1) calls itself (depth 2: reads the sender's code), then the sender (depth 2).
  const tree = frame(entryPoint, [frame(entryPoint), frame(sender)]);

  it("trusts the EntryPoint's own frames, at the top and in its calls to itself", () => {
    const list = steps(['EXTCODESIZE', 1], ['CALL', 1], ['EXTCODESIZE', 2], ['RETURN', 2], ['CALL', 1], ['ADD', 2], ['STOP', 2]);
    expect(codeReadOutsideEntryPoint(list, tree, hasCode, entryPoint)).toBe(false);
  });

  it("finds one in an entity's frame, and in a frame below it", () => {
    const inSender = steps(['CALL', 1], ['STOP', 2], ['CALL', 1], ['EXTCODEHASH', 2]);
    expect(codeReadOutsideEntryPoint(inSender, tree, hasCode, entryPoint)).toBe(true);
    const deeper = frame(entryPoint, [frame(entryPoint), frame(sender, [frame(other, [], { from: sender })])]);
    const list = steps(['CALL', 1], ['STOP', 2], ['CALL', 1], ['CALL', 2], ['EXTCODECOPY', 3], ['STOP', 3], ['STOP', 2]);
    expect(codeReadOutsideEntryPoint(list, deeper, hasCode, entryPoint)).toBe(true);
  });

  it('skips children that run no code (a precompile, an address without code) when lining frames up', () => {
    const ecrecover = '0x0000000000000000000000000000000000000001';
    const empty = '0x000000000000000000000000000000000000e001';
    const tree2 = frame(entryPoint, [frame(ecrecover), frame(empty), frame(entryPoint), frame(sender)]);
    const list = steps(['STATICCALL', 1], ['CALL', 1], ['CALL', 1], ['EXTCODESIZE', 2], ['STOP', 2], ['CALL', 1], ['ADD', 2]);
    expect(codeReadOutsideEntryPoint(list, tree2, hasCode, entryPoint)).toBe(false);
    // Were the empty address's frame taken for one that ran, the read would land in the sender's frame.
    const swapped = frame(entryPoint, [frame(ecrecover), frame(empty), frame(sender), frame(entryPoint)]);
    expect(codeReadOutsideEntryPoint(list, swapped, hasCode, entryPoint)).toBe(true);
  });

  it('is unsure (true) where the frames cannot be lined up: a child that used no gas, a skipped depth, no child left', () => {
    const noGas = frame(entryPoint, [frame(entryPoint, [], { gasUsed: '0x0' })]);
    expect(codeReadOutsideEntryPoint(steps(['CALL', 1], ['EXTCODESIZE', 2]), noGas, hasCode, entryPoint)).toBe(true);
    expect(codeReadOutsideEntryPoint(steps(['CALL', 1], ['EXTCODESIZE', 3]), tree, hasCode, entryPoint)).toBe(true);
    const list = steps(['CALL', 1], ['STOP', 2], ['CALL', 1], ['STOP', 2], ['CALL', 1], ['ADD', 2]);
    expect(codeReadOutsideEntryPoint(list, tree, hasCode, entryPoint)).toBe(true);
  });

  it("does not trust the EntryPoint's code run by DELEGATECALL in another's frame", () => {
    const delegated = frame(entryPoint, [frame(sender, [frame(entryPoint, [], { type: 'DELEGATECALL', from: sender })])]);
    const list = steps(['CALL', 1], ['DELEGATECALL', 2], ['EXTCODESIZE', 3]);
    expect(codeReadOutsideEntryPoint(list, delegated, hasCode, entryPoint)).toBe(true);
  });
});
