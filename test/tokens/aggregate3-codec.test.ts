import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, erc20Abi, type Hex, multicall3Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeAggregate3, encodeAggregate3 } from '../../src/tokens/aggregate3-codec.ts';

const resultType = [
  {
    type: 'tuple[]',
    components: [
      { type: 'bool', name: 'success' },
      { type: 'bytes', name: 'returnData' },
    ],
  },
] as const;

describe('aggregate3 codec', () => {
  const calls = [
    {
      target: '0x000000000000000000000000000000000000dEaD' as const,
      callData: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: ['0x1111111111111111111111111111111111111111'],
      }),
    },
    { target: '0xcA11bde05977b3631167028862bE2a173976CA11' as const, callData: '0x' as Hex },
    { target: '0x0000000000000000000000000000000000000001' as const, callData: `0x${'ab'.repeat(64)}` as Hex },
    { target: '0x0000000000000000000000000000000000000002' as const, callData: `0x${'cd'.repeat(33)}` as Hex },
  ];

  it('encodes calldata exactly as viem does', () => {
    for (const list of [calls, [], calls.slice(0, 1)]) {
      expect(encodeAggregate3(list)).toBe(
        encodeFunctionData({
          abi: multicall3Abi,
          functionName: 'aggregate3',
          args: [list.map((call) => ({ ...call, allowFailure: true }))],
        }),
      );
    }
  });

  it('decodes results exactly as viem does', () => {
    const results = [
      { success: true, returnData: `0x${'00'.repeat(31)}05` as Hex },
      { success: false, returnData: '0x' as Hex },
      { success: true, returnData: `0x${'ef'.repeat(100)}` as Hex },
      { success: false, returnData: '0x08c379a0' as Hex },
    ];
    const data = encodeAbiParameters(resultType, [results]);
    expect(decodeAggregate3(data)).toEqual(decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data }));
    expect(decodeAggregate3(data)).toEqual(results);
    expect(decodeAggregate3(encodeAbiParameters(resultType, [[]]))).toEqual([]);
  });

  it('refuses data that is not an aggregate3 result', () => {
    const data = encodeAbiParameters(resultType, [[{ success: true, returnData: `0x${'ef'.repeat(40)}` }]]);
    expect(() => decodeAggregate3(data.slice(0, -64) as Hex)).toThrow(/truncated/);
    expect(() => decodeAggregate3('0x1234')).toThrow(/truncated/);
    expect(() => decodeAggregate3(`0x${'ff'.repeat(64)}`)).toThrow(/impossible offset/);
  });
});
