import { describe, expect, it } from 'vitest';
import { maxParamsDepth } from '../../src/rpc/params-shape.ts';
import type { TestService } from '../support/service.ts';
import { useTestServiceWithKey } from '../support/service-setups.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const call = (method: string, paramsText: string, id = '1') =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsText}}`;

/** A JSON-RPC answer as the spec shapes it: jsonrpc "2.0", an id, exactly one of result and error. */
function expectRpcShape(answer: RpcAnswer, where: string) {
  expect(answer.jsonrpc, where).toBe('2.0');
  expect(Object.hasOwn(answer, 'id'), where).toBe(true);
  expect(Object.hasOwn(answer, 'result') !== Object.hasOwn(answer, 'error'), where).toBe(true);
  if (answer.error) {
    expect(Number.isInteger(answer.error.code), where).toBe(true);
    expect(typeof answer.error.message, where).toBe('string');
    expect(answer.error.message.length, where).toBeLessThan(1000);
  }
}

describe('hostile JSON-RPC: nesting, size, every id type, unknown methods: never a 5xx, always the spec shape', () => {
  let t: TestService;
  let key: string;
  useTestServiceWithKey((started) => ({ t, key } = started));

  const post = async (body: string) => {
    const response = await t.rpc(key, body);
    const text = await response.text();
    return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
  };

  /** Any answer at all: 200/204 with JSON-RPC answers, or a 4xx with the REST error naming the parameter. */
  const expectSpecAnswer = async (body: string, label: string) => {
    const answer = await post(body);
    expect(answer.status, label).toBeLessThan(500);
    if (answer.status === 204) return answer;
    if (answer.status === 200) {
      for (const each of Array.isArray(answer.body) ? answer.body : [answer.body]) expectRpcShape(each, label);
      return answer;
    }
    expect(answer.body.error.status, label).toBe(answer.status);
    expect(answer.body.error.code, label).toBe('invalid_request');
    expect(answer.body.error.message, label).toMatch(/'(body|batch|method)'/);
    return answer;
  };

  it('eth_call with params nested 50,000 arrays deep is -32602 naming params, alone, in a batch and over WebSocket', async () => {
    const deep = call('eth_call', nested(50_000));
    const alone = await post(deep);
    expect(alone.status).toBe(200);
    expect(alone.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: `invalid params: 'params' nests deeper than ${maxParamsDepth} levels` },
    });
    const batch = await post(`[${deep},${call('eth_chainId', '[]', '2')}]`);
    expect(batch.body.map((a: RpcAnswer) => a.error?.code ?? a.result)).toEqual([-32602, '0x7a69']);
    // Deep objects too, and deep inside an otherwise ordinary call.
    const objects = `${`{"a":`.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expect((await post(call('eth_call', `[${objects},"latest"]`))).body.error.code).toBe(-32602);

    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
    try {
      client.send(deep);
      expect((await client.waitFor((m) => m.id === 1)).error.code).toBe(-32602);
    } finally {
      client.close();
    }
  });

  it(`params ${maxParamsDepth} deep are forwarded; one level more is refused`, async () => {
    const atLimit = await post(call('eth_call', nested(maxParamsDepth)));
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.error?.message ?? '').not.toMatch(/nests deeper/);
    expect((await post(call('eth_call', nested(maxParamsDepth + 1)))).body.error.message).toMatch(/nests deeper/);
  });

  it('a body that is nothing but 50,000 nested arrays is a batch of one bad call, not a crash', async () => {
    const answer = await expectSpecAnswer(nested(50_000), 'nested body');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: a call must be a JSON object' } },
    ]);
  });

  it('members of one params object whose names differ only in case are -32602: a Go node would read the last', async () => {
    const answer = await post(call('eth_getLogs', '[{"fromBlock":"0x0","toBlock":"0x1","TOBLOCK":"latest"}]'));
    expect(answer.body.error).toEqual({
      code: -32602,
      message: "invalid params: 'params' has members 'toBlock' and 'TOBLOCK', whose names differ only in case",
    });
  });

  it('huge params: a 1 MiB string, a 4 MiB array, a 1 MiB method name: answered, never a 5xx', async () => {
    const mib = 'ab'.repeat(512 * 1024);
    const data = await expectSpecAnswer(
      call('eth_call', `[{"to":"0x000000000000000000000000000000000000dead","data":"0x${mib}"},"latest"]`),
      'data',
    );
    expect(data.status).toBe(200);
    await expectSpecAnswer(call('eth_getBalance', `[${'0,'.repeat(2 * 1024 * 1024)}0]`), 'array');
    const longMethod = await expectSpecAnswer(call(`eth_${'x'.repeat(1024 * 1024)}`, '[]'), 'method');
    expect(longMethod.status).toBe(200);
    const unknown = await expectSpecAnswer(call(`zz_${'x'.repeat(1024 * 1024)}`, '[]'), 'unknown method');
    expect(unknown.body.error.code).toBe(-32601);
  });

  const ids: [string, string, unknown][] = [
    ['a string', '"abc"', 'abc'],
    ['an empty string', '""', ''],
    ['a number', '7', 7],
    ['zero', '0', 0],
    ['a negative number', '-42', -42],
    ['null', 'null', null],
    ['2^53 - 1', '9007199254740991', 9007199254740991],
  ];
  it.each(ids)('an id that is %s comes back unchanged', async (_name, idText, id) => {
    const answer = await expectSpecAnswer(call('eth_chainId', '[]', idText), idText);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id, result: '0x7a69' });
  });

  const badIds: [string, string][] = [
    ['fractional', '1.5'],
    ['beyond 2^53 (it would not come back unchanged)', '1152921504606846976'],
    ['huge', '1e400'],
    ['an object', '{"a":1}'],
    ['an array', '[1]'],
    ['a boolean', 'true'],
    ['deeply nested', nested(50_000)],
  ];
  it.each(badIds)('an id that is %s is -32600 with id null', async (_name, idText) => {
    const answer = await expectSpecAnswer(call('eth_chainId', '[]', idText), idText.slice(0, 20));
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: "Invalid request: 'id' must be a string, an integer or null" },
    });
  });

  it('batches: empty and 1,001 calls are 400 naming batch; nested arrays and scalars as elements are -32600 each', async () => {
    expect((await expectSpecAnswer('[]', 'empty')).status).toBe(400);
    const tooMany = await expectSpecAnswer(
      `[${Array.from({ length: 1001 }, () => call('eth_chainId', '[]')).join(',')}]`,
      '1001',
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/'batch'.*not 1001/);
    const odd = await expectSpecAnswer(`[[1],[],[[[]]],1,"x",null,true,{},${call('eth_chainId', '[]', '"ok"')}]`, 'odd batch');
    expect(odd.body.map((a: RpcAnswer) => a.error?.code ?? a.result)).toEqual([
      -32600,
      -32600,
      -32600,
      -32600,
      -32600,
      -32600,
      -32600,
      -32600,
      '0x7a69',
    ]);
  });

  it('bodies that are not JSON-RPC at all are 400 naming body', async () => {
    for (const body of ['nope', '', '   ', '42', '"text"', 'null', 'true', '{"a":', '\u0000']) {
      const answer = await expectSpecAnswer(body, JSON.stringify(body));
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toMatch(/'body'/);
    }
  });

  it('a leading byte order mark is ignored, as the REST routes and the bundler URL ignore it (RFC 8259 allows it)', async () => {
    const bom = '\uFEFF';
    expect((await post(`${bom}${call('eth_chainId', '[]')}`)).body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect((await post(`${bom}[${call('eth_chainId', '[]', '2')}]`)).body).toEqual([{ jsonrpc: '2.0', id: 2, result: '0x7a69' }]);
    const urlForm = await fetch(`${t.url}/v1/rpc/ethereum/devnet/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${bom}${call('eth_chainId', '[]', '3')}`,
    });
    expect(await urlForm.json()).toEqual({ jsonrpc: '2.0', id: 3, result: '0x7a69' });
    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
    client.send(`${bom}${call('eth_chainId', '[]', '4')}`);
    expect(await client.waitFor((m) => m.id === 4)).toEqual({ jsonrpc: '2.0', id: 4, result: '0x7a69' });
    client.close();
    // Only one mark, and only at the start: anything else is still not JSON.
    for (const body of [`${bom}${bom}${call('eth_chainId', '[]')}`, `${call('eth_chainId', '[]')}${bom}`, bom]) {
      expect((await post(body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('an id with an unpaired surrogate is -32600 saying so, alone and in a batch beside a call that is answered', async () => {
    const why = "Invalid request: 'id' must be valid Unicode text (it has an unpaired UTF-16 surrogate)";
    const lone = '{"jsonrpc":"2.0","id":"a\\ud800","method":"eth_chainId","params":[]}';
    expect((await post(lone)).body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: why } });
    expect((await post(`[${lone},${call('eth_chainId', '[]', '"ok"')}]`)).body).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: why } },
      { jsonrpc: '2.0', id: 'ok', result: '0x7a69' },
    ]);
  });

  it('unknown methods of every kind are answered in shape (forwarded eth_*, refused others)', async () => {
    for (const method of [
      'eth_noSuch',
      'foo',
      'FOO_bar',
      'eth_',
      '_',
      'trace_unknown',
      'debug_unknown',
      'rpc_modules',
      '\u00e9th_call',
    ]) {
      const answer = await expectSpecAnswer(call(method, '[]'), method);
      expect(answer.status).toBe(200);
      expect(answer.body.error, method).toBeDefined();
    }
  });
});
