import { describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { useStartedWithKey } from '../support/service-setups.ts';

/**
 * Values a parsed JSON body cannot carry as sent (1e400, a number past 2^53 - 1, an unpaired surrogate) are a
 * fault of the one call holding them, as on /v1/rpc (docs/errors.md): -32602 naming where in `params`, at that
 * call's position, the other calls of a batch answered; never a 400 refusing the whole request.
 */
describe('the bundler endpoint answers values JSON cannot carry as the call errors of /v1/rpc', () => {
  let t: TestService;
  let key: string;
  useStartedWithKey(
    () =>
      startTestService({
        settings: { bundler_keys: devnetExecutorKeys[0] },
        chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
      }),
    (started) => started.createKey(),
    (started, created) => {
      t = started;
      key = created;
    },
  );

  const post = async (endpoint: 'rpc' | 'bundler', text: string) => {
    const response = await fetch(`${t.url}/v1/${endpoint}/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: text,
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const call = (method: string, paramsText: string, id = '1') =>
    `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsText}}`;

  const cases: [string, string, RegExp][] = [
    ['1e400', '[1e400]', /^invalid params: params\[0\] is a number too large to represent$/],
    ['a number past 2^53', '[9007199254740993]', /^invalid params: params\[0\] is a number past 9007199254740991/],
    ['an unpaired surrogate', '["\\ud800"]', /^invalid params: params\[0\] must be valid Unicode text/],
    ['an unpaired surrogate in a member name', '[{"\\udc00":1}]', /params\[0\]/],
  ];
  for (const method of ['eth_supportedEntryPoints', 'eth_getUserOperationByHash', 'eth_chainId']) {
    it.each(cases)(`${method} with %s in params: -32602 at the call, as on /v1/rpc`, async (_name, params, message) => {
      const bundler = await post('bundler', call(method, params));
      expect(bundler.status).toBe(200);
      expect(bundler.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: expect.stringMatching(message) },
      });
      const rpc = await post('rpc', call(method, params));
      expect(rpc.body.error.code).toBe(-32602);
    });
  }

  it('in a batch, only the call holding the value is refused; the others are answered', async () => {
    const batch = `[${call('eth_supportedEntryPoints', '[1e400]', '1')},${call('eth_chainId', '[]', '2')}]`;
    const answer = await post('bundler', batch);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'invalid params: params[0] is a number too large to represent' } },
      { jsonrpc: '2.0', id: 2, result: '0x7a69' },
    ]);
  });

  it('an id JSON cannot carry (1e400, past 2^53) is -32600 with id null, as on /v1/rpc', async () => {
    for (const id of ['1e400', '9007199254740993']) {
      const answer = await post('bundler', call('eth_chainId', '[]', id));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
  });
});
