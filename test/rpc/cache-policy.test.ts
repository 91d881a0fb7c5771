import { describe, expect, it } from 'vitest';
import { formatRpcAnswer, splitRpcAnswer } from '../../src/jsonrpc/raw-answer.ts';
import { cacheScopeFor, scopeOfResult } from '../../src/rpc/cache/cache-policy.ts';
import { bisectRange, resolveLogsRange, splitRange } from '../../src/rpc/get-logs/block-range.ts';
import { isRangeTooLargeError } from '../../src/rpc/get-logs/range-error.ts';

describe('cache scope', () => {
  // Head 100 at depth 2, or a node's `finalized` tag at 98: the same final block.
  const finalBlock = 98;
  it.each([
    ['eth_chainId', [], 'final'],
    ['eth_blockNumber', [], 'head'],
    ['eth_getBalance', ['0xab', '0x62'], 'final'],
    ['eth_getBalance', ['0xab', '0x63'], 'head'],
    ['eth_getBalance', ['0xab'], 'head'],
    ['eth_call', [{}, 'pending'], 'none'],
    ['eth_call', [{}, { blockNumber: '0x1' }], 'final'],
    ['eth_getStorageAt', ['0xab', '0x0', 'earliest'], 'final'],
    ['eth_getTransactionReceipt', ['0x12'], 'by-result'],
    ['eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x10' }], 'final'],
    ['eth_getLogs', [{ fromBlock: '0x1' }], 'head'],
    ['eth_sendRawTransaction', ['0x00'], 'none'],
    ['eth_getFilterChanges', ['0x1'], 'none'],
  ])('%s %j is %s (final block 98)', (method, params, scope) => {
    expect(cacheScopeFor(method, params, finalBlock)).toBe(scope);
  });

  it('a read at a number is never final while the final block is unknown', () => {
    expect(cacheScopeFor('eth_getBalance', ['0xab', '0x1'], undefined)).toBe('head');
  });

  it('a lookup by hash is final once its block is', () => {
    expect(scopeOfResult('{"blockHash":"0x1","blockNumber":"0x62"}', finalBlock)).toBe('final');
    expect(scopeOfResult('{"blockHash":"0x1","blockNumber":"0x63"}', finalBlock)).toBe('head');
    expect(scopeOfResult('{"blockHash":null,"blockNumber":null}', finalBlock)).toBe('head');
  });
});

describe('raw answers', () => {
  it('finds the raw result in the usual layout and in any other', () => {
    expect(splitRpcAnswer('{"jsonrpc":"2.0","id":"x","result":{"a":[1,"}"]}}', '"x"')).toEqual({
      kind: 'result',
      raw: '{"a":[1,"}"]}',
    });
    expect(splitRpcAnswer('{ "id": 1, "error": {"code":-1,"message":"a \\" b"}, "jsonrpc": "2.0" }', '2')).toEqual({
      kind: 'error',
      raw: '{"code":-1,"message":"a \\" b"}',
    });
    expect(splitRpcAnswer('not json', '1')).toBeUndefined();
    expect(formatRpcAnswer('7', { kind: 'result', raw: '"0x1"' })).toBe('{"jsonrpc":"2.0","id":7,"result":"0x1"}');
  });
});

describe('eth_getLogs ranges', () => {
  it('resolves, splits and bisects', () => {
    const tags = { finalized: 12, safe: 16 };
    expect(resolveLogsRange({ fromBlock: '0x5' }, 20, tags)).toEqual({ from: 5, to: 20 });
    expect(resolveLogsRange({ blockHash: '0x12' }, 20, tags)).toBeUndefined();
    expect(resolveLogsRange({ fromBlock: 'pending' }, 20, tags)).toBeUndefined();
    expect(splitRange({ from: 0, to: 9 }, 4)).toEqual([
      { from: 0, to: 3 },
      { from: 4, to: 7 },
      { from: 8, to: 9 },
    ]);
    expect(bisectRange({ from: 4, to: 7 })).toEqual([
      { from: 4, to: 5 },
      { from: 6, to: 7 },
    ]);
  });

  it('resolves finalized and safe to the blocks the network counts as such, never to the head', () => {
    const tags = { finalized: 12, safe: 16 };
    expect(resolveLogsRange({ fromBlock: '0x5', toBlock: 'finalized' }, 20, tags)).toEqual({ from: 5, to: 12 });
    expect(resolveLogsRange({ fromBlock: 'finalized', toBlock: 'safe' }, 20, tags)).toEqual({ from: 12, to: 16 });
    expect(
      resolveLogsRange({ fromBlock: '0x5', toBlock: 'safe' }, 20, { finalized: undefined, safe: undefined }),
    ).toBeUndefined();
    expect(resolveLogsRange({ fromBlock: '0xd', toBlock: 'finalized' }, 20, tags)).toBeUndefined();
  });

  it.each([
    ['query returned more than 10000 results', true],
    ['Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range', true],
    ['block range too large, max 5000', true],
    ['exceed maximum block range: 50000', true],
    ['invalid argument 0: hex string has odd length', false],
    ['execution reverted', false],
  ])('"%s" says the range is too large: %s', (message, expected) => {
    expect(isRangeTooLargeError(JSON.stringify({ code: -32000, message }))).toBe(expected);
  });
});
