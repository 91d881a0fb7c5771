import { describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { useTestServiceWithKey } from '../support/service-setups.ts';

const account = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const contractless = '0x000000000000000000000000000000000000dead';
const unknownHash = `0x${'ab'.repeat(32)}`;

/** Valid and invalid requests; each is sent to anvil directly and through Blockyard. */
const corpus: [string, unknown][] = [
  ['eth_chainId', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }],
  ['eth_chainId without params', { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }],
  ['eth_blockNumber, string id', { jsonrpc: '2.0', id: 'block', method: 'eth_blockNumber', params: [] }],
  ['eth_blockNumber, null id', { jsonrpc: '2.0', id: null, method: 'eth_blockNumber', params: [] }],
  ['net_version', { jsonrpc: '2.0', id: 3, method: 'net_version', params: [] }],
  ['web3_clientVersion', { jsonrpc: '2.0', id: 4, method: 'web3_clientVersion', params: [] }],
  ['eth_getBalance latest', { jsonrpc: '2.0', id: 5, method: 'eth_getBalance', params: [account, 'latest'] }],
  ['eth_getBalance at block 0', { jsonrpc: '2.0', id: 6, method: 'eth_getBalance', params: [account, '0x0'] }],
  ['eth_getTransactionCount', { jsonrpc: '2.0', id: 7, method: 'eth_getTransactionCount', params: [account, 'latest'] }],
  ['eth_getCode of an account', { jsonrpc: '2.0', id: 8, method: 'eth_getCode', params: [contractless, 'latest'] }],
  ['eth_getStorageAt', { jsonrpc: '2.0', id: 9, method: 'eth_getStorageAt', params: [contractless, '0x0', 'latest'] }],
  ['eth_getBlockByNumber 0', { jsonrpc: '2.0', id: 10, method: 'eth_getBlockByNumber', params: ['0x0', false] }],
  ['eth_getBlockByNumber latest, full', { jsonrpc: '2.0', id: 11, method: 'eth_getBlockByNumber', params: ['latest', true] }],
  [
    'eth_getBlockByNumber beyond the head',
    { jsonrpc: '2.0', id: 12, method: 'eth_getBlockByNumber', params: ['0xffffff', false] },
  ],
  ['eth_getBlockByHash unknown', { jsonrpc: '2.0', id: 13, method: 'eth_getBlockByHash', params: [unknownHash, false] }],
  ['eth_getTransactionReceipt unknown', { jsonrpc: '2.0', id: 14, method: 'eth_getTransactionReceipt', params: [unknownHash] }],
  ['eth_call', { jsonrpc: '2.0', id: 15, method: 'eth_call', params: [{ to: contractless, data: '0x' }, 'latest'] }],
  [
    'eth_estimateGas',
    { jsonrpc: '2.0', id: 16, method: 'eth_estimateGas', params: [{ from: account, to: contractless, value: '0x1' }] },
  ],
  ['eth_gasPrice', { jsonrpc: '2.0', id: 17, method: 'eth_gasPrice', params: [] }],
  ['eth_feeHistory', { jsonrpc: '2.0', id: 18, method: 'eth_feeHistory', params: ['0x4', 'latest', [10, 50, 90]] }],
  ['eth_getLogs', { jsonrpc: '2.0', id: 19, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] }],
  ['eth_syncing', { jsonrpc: '2.0', id: 20, method: 'eth_syncing', params: [] }],
  // Invalid: each must get exactly the node's error.
  ['unknown method', { jsonrpc: '2.0', id: 30, method: 'eth_noSuchMethod', params: [] }],
  ['address of the wrong type', { jsonrpc: '2.0', id: 37, method: 'eth_getBalance', params: [1, 'latest'] }],
  ['address too short', { jsonrpc: '2.0', id: 38, method: 'eth_getBalance', params: ['0x1234', 'latest'] }],
  ['bad block tag', { jsonrpc: '2.0', id: 39, method: 'eth_getBalance', params: [account, 'yesterday'] }],
  ['too few params', { jsonrpc: '2.0', id: 40, method: 'eth_getBlockByNumber', params: [] }],
  ['bad hex data', { jsonrpc: '2.0', id: 41, method: 'eth_call', params: [{ to: contractless, data: '0xzz' }, 'latest'] }],
  ['unknown transaction raw', { jsonrpc: '2.0', id: 42, method: 'eth_sendRawTransaction', params: ['0x00'] }],
  ['negative id', { jsonrpc: '2.0', id: -7, method: 'eth_chainId' }],
  ['empty string id', { jsonrpc: '2.0', id: '', method: 'eth_chainId' }],
  ['params null', { jsonrpc: '2.0', id: 45, method: 'eth_chainId', params: null }],
  ['a batch of one', [{ jsonrpc: '2.0', id: 60, method: 'eth_getBlockByNumber', params: ['0x0', true] }]],
];

/**
 * Calls Blockyard refuses itself instead of forwarding (src/rpc/parse-call.ts, src/rpc/method-policy.ts):
 * the same HTTP status, JSON-RPC code and id as anvil's answer, with a message that says what is wrong
 * where anvil says only "Invalid request" or "Method not found".
 */
const refusedByUs: [string, unknown][] = [
  ['empty method', { jsonrpc: '2.0', id: 31, method: '' }],
  ['method not a string', { jsonrpc: '2.0', id: 32, method: 5 }],
  ['missing method', { jsonrpc: '2.0', id: 33, params: [] }],
  ['jsonrpc 1.0', { jsonrpc: '1.0', id: 34, method: 'eth_chainId' }],
  ['no jsonrpc member', { id: 35, method: 'eth_chainId' }],
  ['params a string', { jsonrpc: '2.0', id: 36, method: 'eth_chainId', params: 'x' }],
  ['id an object', { jsonrpc: '2.0', id: {}, method: 'eth_chainId' }],
  ['id an array', { jsonrpc: '2.0', id: [1], method: 'eth_chainId' }],
  ['id fractional', { jsonrpc: '2.0', id: 1.5, method: 'eth_chainId' }],
  ['id 1e300', { jsonrpc: '2.0', id: 1e300, method: 'eth_chainId' }],
  ['id a boolean', { jsonrpc: '2.0', id: true, method: 'eth_chainId' }],
  ['a member other than the four', { jsonrpc: '2.0', id: 43, method: 'eth_chainId', extra: 1 }],
  ['a second method member in capitals', { jsonrpc: '2.0', id: 44, method: 'eth_chainId', METHOD: 'eth_blockNumber' }],
  [
    'a batch mixing valid and invalid calls',
    [
      { jsonrpc: '2.0', id: 50, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 51, method: 'eth_noSuchMethod', params: [] },
      { jsonrpc: '2.0', id: 52 },
      { jsonrpc: '2.0', id: 53, method: 'eth_getBalance', params: ['0x1234', 'latest'] },
      { jsonrpc: '2.0', id: 54, method: 'eth_blockNumber', params: [] },
    ],
  ],
];

/** Our refusals' messages as anvil words them, so the rest of the answer compares byte for byte. */
function asAnvilWordsIt(text: string): string {
  const reword = (answer: { error?: { message: string } }) => {
    if (answer.error?.message.startsWith('Invalid request: ')) answer.error.message = 'Invalid request';
    if (/^the method '.*' is not available on /.test(answer.error?.message ?? '')) answer.error!.message = 'Method not found';
    return answer;
  };
  const parsed = JSON.parse(text) as { error?: { message: string } } | { error?: { message: string } }[];
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(reword) : reword(parsed));
}

describe('differential: the same requests to anvil directly and through Blockyard', () => {
  let t: TestService;
  let key: string;
  useTestServiceWithKey((started) => ({ t, key } = started));

  const direct = async (body: string) => {
    const response = await fetch(t.anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, text: await response.text() };
  };
  const proxied = async (body: string) => {
    const response = await t.rpc(key, body);
    return { status: response.status, text: await response.text() };
  };

  it.each(corpus)('%s: identical answer, byte for byte, twice (uncached and cached)', async (_name, request) => {
    const body = JSON.stringify(request);
    for (let round = 0; round < 2; round++) {
      const ours = await proxied(body);
      const theirs = await direct(body);
      expect(ours.status).toBe(theirs.status);
      expect(ours.text).toBe(theirs.text);
    }
  });

  it.each(refusedByUs)('%s: refused by Blockyard with the status, code and id anvil gives', async (_name, request) => {
    const body = JSON.stringify(request);
    const ours = await proxied(body);
    const theirs = await direct(body);
    expect(ours.status).toBe(theirs.status);
    expect(ours.text).not.toBe(theirs.text);
    expect(asAnvilWordsIt(ours.text)).toBe(theirs.text);
  });

  // design.md: a body that is not JSON-RPC at all fails the whole HTTP request with the REST error
  // object (anvil answers these with a -32600 JSON-RPC error instead). Tested as the documented exception.
  it.each([
    ['not JSON', 'nope'],
    ['an empty body', ''],
    ['a JSON number', '42'],
    ['an empty batch', '[]'],
  ])('%s: the documented exception, HTTP 400 invalid_request', async (_name, body) => {
    const ours = await proxied(body);
    expect(ours.status).toBe(400);
    expect(JSON.parse(ours.text).error.code).toBe('invalid_request');
    const theirs = JSON.parse((await direct(body)).text);
    expect(theirs.error.code).toBe(-32600);
  });
});
