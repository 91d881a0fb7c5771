import fc from 'fast-check';
import type { FuzzRequest } from './rest-requests.ts';
import { hostileString } from './schema-values.ts';

/**
 * Methods worth calling. Node-control methods that reach outside (anvil_reset with a fork URL) or
 * stop the devnet (evm_setAutomine) are left out: the fuzz must not break the chain under its own feet.
 */
const knownMethods = [
  'eth_blockNumber',
  'eth_chainId',
  'eth_call',
  'eth_getBalance',
  'eth_getLogs',
  'eth_getBlockByNumber',
  'eth_getTransactionReceipt',
  'eth_estimateGas',
  'eth_sendRawTransaction',
  'eth_subscribe',
  'eth_feeHistory',
  'net_version',
  'web3_clientVersion',
  'debug_traceCall',
  'trace_block',
  'eth_sendUserOperation',
  'eth_estimateUserOperationGas',
  'eth_getUserOperationByHash',
  'eth_getUserOperationReceipt',
  'eth_supportedEntryPoints',
  'pm_getPaymasterStubData',
  'pm_getPaymasterData',
  'debug_bundler_dumpMempool',
];

const unknownMethods = [
  '',
  'nope',
  'admin_addPeer',
  'rpc_modules',
  'ETH_BLOCKNUMBER',
  'eth_',
  '__proto__',
  'constructor',
  'x'.repeat(10_000),
];

const ids: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1, 0, -1, 1.5, 2 ** 53 + 1, 1e308, null, '', 'id', '\u0000', true, false, [], {}, [1], { a: 1 }),
  fc.integer(),
  fc.string({ maxLength: 20 }),
);

const params: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, null, 'string', 42, [['latest']], [{ to: '0x0', data: '0x' }, 'latest']) },
  // Members that differ from a canonical name only in case (-32602, src/rpc/member-names.ts), at the top and nested.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      [{ To: '0x0000000000000000000000000000000000000001', data: '0x60006000f3' }, 'latest'],
      [{ ADDRESS: '0x0000000000000000000000000000000000000001', fromBlock: '0x0' }],
      [
        { to: '0x0000000000000000000000000000000000000001' },
        'latest',
        { '0x0000000000000000000000000000000000000001': { Code: '0x00' } },
      ],
      [{ blockStateCalls: [{ calls: [{ tO: '0x0000000000000000000000000000000000000001' }] }] }, 'latest'],
      [{ Sender: '0x0000000000000000000000000000000000000001', CallData: '0x' }, '0x0000000071727De22E5E9d8BAf0edAc6f37da032'],
      ['logs', { addreſſ: '0x0000000000000000000000000000000000000001' }],
    ),
  },
  { weight: 1, arbitrary: hostileString.map((s) => [s]) },
  { weight: 1, arbitrary: fc.constant(['0x'.padEnd(1024 * 1024, 'ab')]) },
  { weight: 1, arbitrary: fc.constant([[[[[[[[[[[]]]]]]]]]]]) },
);

/** One call: mostly well formed, sometimes without a field, with a wrong version, or with a stray key. */
const call: fc.Arbitrary<unknown> = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2, undefined),
    id: ids,
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...knownMethods) },
      { weight: 1, arbitrary: fc.constantFrom(...unknownMethods) },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    ),
    params,
  },
  { requiredKeys: ['method'] },
);

const body: fc.Arbitrary<{ json?: unknown; raw?: Buffer; what: string }> = fc.oneof(
  { weight: 4, arbitrary: call.map((json) => ({ json, what: 'one call' })) },
  { weight: 2, arbitrary: fc.array(call, { minLength: 1, maxLength: 5 }).map((json) => ({ json, what: 'a batch' })) },
  fc.constant({ json: [], what: 'an empty batch' }),
  fc.constant({
    json: Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })),
    what: 'a 1,001-call batch',
  }),
  fc.constant({ json: [[{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }]], what: 'a nested batch' }),
  fc.constantFrom(1, 'x', null, true, [1, 'two'], [null]).map((json) => ({ json, what: 'not a call' })),
  fc
    .constantFrom('', '{', '[', '{"jsonrpc":"2.0","id":1,"method":', 'garbage', '\u0000', '[{}', '{"id":1}{"id":2}')
    .map((text) => ({ raw: Buffer.from(text), what: 'bad JSON' })),
  fc.constant({
    raw: Buffer.from([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_'), 0xff, 0xfe, ...Buffer.from('","params":[]}')]),
    what: 'invalid UTF-8',
  }),
);

/** With percent-encoded spellings of the same paths: served alike, never logged with a key. */
const endpoints = [
  '/v1/rpc/ethereum/devnet',
  '/v1/bundler/ethereum/devnet',
  '/%761/rpc/ethereum/devnet',
  '/v1/%72pc/ethereum/%64evnet',
  '/v1/bundler/ethereu%6D/devnet',
];

/** JSON-RPC requests to the proxy and the bundler: calls, batches, bad JSON, odd content types. */
export const jsonRpcRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    target: fc.constantFrom(...endpoints),
    body,
    contentType: fc.constantFrom(
      'application/json',
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    ),
  })
  .map(({ target, body: b, contentType }) => ({
    method: 'POST',
    target,
    headers: (contentType ? { 'content-type': contentType } : {}) as Record<string, string>,
    body: b.raw ?? Buffer.from(JSON.stringify(b.json)),
    broken: `${b.what}${contentType === 'application/json' ? '' : ` as '${contentType}'`}`,
  }));
