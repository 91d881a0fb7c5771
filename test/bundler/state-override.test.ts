import { describe, expect, it } from 'vitest';
import { mergeStateOverrides, overrideOfStateDiff, rpcStateOverride } from '../../src/bundler/state-override.ts';

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const account = '0x1111111111111111111111111111111111111111';
const entryPoint = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
const caller = '0x000000000000000000000000000000000000bEEF';

describe('state overrides from a prestateTracer diff', () => {
  it('puts new code, nonce, balance and storage in place, clears slots the diff dropped, and leaves the caller out', () => {
    const override = overrideOfStateDiff(
      {
        pre: { [entryPoint.toLowerCase()]: { storage: { [word(7)]: word(1) } }, [caller.toLowerCase()]: { balance: '0x0' } },
        post: {
          [account]: { code: '0x6000', nonce: 1, balance: '0x10', storage: { [word(0)]: word(42) } },
          [entryPoint.toLowerCase()]: { storage: { [word(1)]: word(2) } },
          [caller.toLowerCase()]: { nonce: 1 },
        },
      },
      [caller],
    );
    expect(override).toEqual([
      {
        address: '0x1111111111111111111111111111111111111111',
        code: '0x6000',
        balance: 16n,
        nonce: 1,
        stateDiff: [{ slot: word(0), value: word(42) }],
      },
      {
        address: entryPoint,
        stateDiff: [
          { slot: word(7), value: word(0) },
          { slot: word(1), value: word(2) },
        ],
      },
    ]);
  });

  it('merges overrides into one entry per address (later wins), in the JSON-RPC form', () => {
    const merged = mergeStateOverrides(
      [{ address: entryPoint, stateDiff: [{ slot: word(1), value: word(1) }] }],
      [{ address: entryPoint.toLowerCase() as `0x${string}`, code: '0x00', stateDiff: [{ slot: word(1), value: word(5) }] }],
    );
    expect(merged).toEqual([{ address: entryPoint, code: '0x00', stateDiff: [{ slot: word(1), value: word(5) }] }]);
    expect(rpcStateOverride([{ address: account, balance: 255n, nonce: 2 }])).toEqual({
      '0x1111111111111111111111111111111111111111': { balance: '0xff', nonce: '0x2' },
    });
  });
});
