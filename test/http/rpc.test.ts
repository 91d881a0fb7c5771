import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { useTestServiceWithKey } from '../support/service-setups.ts';

// anvil's first default account: a well-known development key, funded on every anvil.
const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const recipient = '0x70997970c51812dc3a010c7d01b50e5d17dc79c8';

describe('JSON-RPC passthrough', () => {
  let t: TestService;
  let key: string;
  useTestServiceWithKey((started) => ({ t, key } = started));

  const viaBlockyard = (apiKey: string) =>
    createPublicClient({
      chain: foundry,
      transport: http(`${t.url}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers: { 'x-api-key': apiKey } }, retryCount: 0 }),
      cacheTime: 0,
    });
  const direct = () => createPublicClient({ chain: foundry, transport: http(t.anvil.url, { retryCount: 0 }), cacheTime: 0 });

  it('answers viem reads the same as anvil directly', async () => {
    const client = viaBlockyard(key);
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getBlockNumber()).toBe(await direct().getBlockNumber());
    expect(await client.getBalance({ address: devAccount.address })).toBe(
      await direct().getBalance({ address: devAccount.address }),
    );
    const block = await client.getBlock({ blockTag: 'latest' });
    expect(block.hash).toBe((await direct().getBlock({ blockNumber: block.number })).hash);
  });

  it('forwards eth_sendRawTransaction with rpc:write, refuses it without', async () => {
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(t.anvil.url) });
    const request = await wallet.prepareTransactionRequest({ to: recipient, value: parseEther('0.5') });
    const serialized = await wallet.signTransaction(request);

    const readOnly = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const refused = await t.rpc(readOnly, { jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: [serialized] });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/rpc:write/);

    const before = await direct().getBalance({ address: recipient });
    const hash = await viaBlockyard(key).sendRawTransaction({ serializedTransaction: serialized });
    const receipt = await direct().waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    expect(await direct().getBalance({ address: recipient })).toBe(before + parseEther('0.5'));
  });

  it('passes chain errors through unchanged (same as anvil directly, apart from id)', async () => {
    const calls = [
      { jsonrpc: '2.0', id: 1, method: 'eth_noSuchMethod', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: ['0x1234'] },
      { jsonrpc: '2.0', id: 3, method: 'eth_call', params: [{ to: recipient, data: '0xzz' }, 'latest'] },
    ];
    for (const call of calls) {
      const ours = (await (await t.rpc(key, call)).json()) as Record<string, unknown>;
      const theirs = (await (
        await fetch(t.anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) })
      ).json()) as Record<string, unknown>;
      expect(ours).toEqual(theirs);
      expect(ours.error).toBeDefined();
    }
  });

  it('runs a batch and keeps the request order; malformed calls are refused one by one, naming what is wrong', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'b' },
      { jsonrpc: '2.0', id: 'c', method: 'eth_blockNumber', params: [] },
      42,
      { jsonrpc: '1.0', id: 'e', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 'f', method: 'eth_chainId', params: 'nope' },
    ];
    const response = await t.rpc(key, batch);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: unknown; result?: string; error?: { code: number; message: string } }[];
    expect(answers.map((a) => a.id)).toEqual(['a', 'b', 'c', null, 'e', 'f']);
    expect(answers[0]!.result).toBe('0x7a69');
    expect(answers[2]!.result).toMatch(/^0x/);
    const reasons = [
      undefined,
      /'method' must be a string/,
      undefined,
      /a call must be a JSON object/,
      /'jsonrpc' must be "2.0"/,
    ];
    for (const index of [1, 3, 4, 5]) {
      expect(answers[index]!.error!.code, `call ${index}`).toBe(-32600);
      expect(answers[index]!.error!.message).toMatch(reasons[index] ?? /'params' must be an array or an object/);
    }
  });

  it('inside a batch, a call without its scope gets its own error and the others run', async () => {
    const readOnly = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const response = await t.rpc(readOnly, [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: ['0x00'] },
    ]);
    expect(response.status).toBe(200);
    const [first, second] = (await response.json()) as { result?: string; error?: { code: number; message: string } }[];
    expect(first!.result).toBe('0x7a69');
    expect(second!.error!.code).toBe(-32010);
    expect(second!.error!.message).toMatch(/rpc:write/);
  });

  it('a single call without method is a JSON-RPC -32600 error', async () => {
    const response = await t.rpc(key, { jsonrpc: '2.0', id: 9, params: [] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32600, message: "Invalid request: 'method' must be a string" },
    });
  });

  it('a notification (no id) gets no answer: 204 alone, left out of a batch', async () => {
    const alone = await t.rpc(key, { jsonrpc: '2.0', method: 'eth_chainId', params: [] });
    expect(alone.status).toBe(204);
    expect(await alone.text()).toBe('');
    const batch = await t.rpc(key, [
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    expect(await batch.json()).toEqual([{ jsonrpc: '2.0', id: 2, result: '0x7a69' }]);
  });

  it('a notification the proxy itself refuses (unknown method, bad params) gets no answer either', async () => {
    const unknown = { jsonrpc: '2.0', method: 'nope_x', params: [] };
    const caseVariant = { jsonrpc: '2.0', method: 'eth_call', params: [{ To: '0x0000000000000000000000000000000000000001' }] };
    for (const notification of [unknown, caseVariant]) {
      const alone = await t.rpc(key, notification);
      expect(alone.status).toBe(204);
      expect(await alone.text()).toBe('');
    }
    const onlyNotifications = await t.rpc(key, [unknown, caseVariant]);
    expect(onlyNotifications.status).toBe(204);
    const mixed = await t.rpc(key, [unknown, { jsonrpc: '2.0', id: 2, method: 'nope_x' }, caseVariant]);
    expect(await mixed.json()).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: "the method 'nope_x' is not available on ethereum/devnet" } },
    ]);
    // A notification that is not one (jsonrpc is not "2.0"): still answered, with id null, as nodes do.
    const invalid = await t.rpc(key, { jsonrpc: '1.0', method: 'eth_chainId' });
    expect((await invalid.json()) as { error: { code: number } }).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("refuses a params value it could not forward as sent (1e400, past 2^53, a lone surrogate) with -32602 naming it, with the call's id", async () => {
    const address = devAccount.address;
    const cases = [
      [`["${address}",1e400]`, 'invalid params: params[1] is a number too large to represent'],
      [
        '[{"fromBlock":"0x0","toBlock":9007199254740993}]',
        /^invalid params: params\[0\]\.toBlock is a number past 9007199254740991/,
      ],
      // A lone surrogate: the node refuses the whole request and answers id null, which no client can match.
      ['["\\ud800","latest"]', 'invalid params: params[0] must be valid Unicode text (it has an unpaired UTF-16 surrogate)'],
      [
        '[{"fromBlock":"0x0","toBlock":"0x1","\\udc00":1}]',
        'invalid params: a member name in params[0] must be valid Unicode text (it has an unpaired UTF-16 surrogate)',
      ],
    ] as const;
    for (const [params, message] of cases) {
      const method = params.startsWith('[{') ? 'eth_getLogs' : 'eth_getBalance';
      const response = await t.rpc(key, `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${params}}`);
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { id: number; error: { code: number; message: string } };
      expect(answer.id).toBe(7);
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toMatch(message);
    }
    // Large but exact numbers still pass.
    const exact = await t.rpc(key, { jsonrpc: '2.0', id: 8, method: 'eth_feeHistory', params: [2, 'latest', [50]] });
    expect(((await exact.json()) as { result?: unknown }).result).toBeDefined();
  });

  it('refuses eth_subscribe and eth_unsubscribe over HTTP with -32601 pointing at the WebSocket, never forwarded', async () => {
    const response = await t.rpc(key, [
      { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 2, method: 'eth_unsubscribe', params: ['0x1'] },
    ]);
    const answers = (await response.json()) as { id: number; error: { code: number; message: string } }[];
    expect(answers.map((answer) => [answer.id, answer.error.code])).toEqual([
      [1, -32601],
      [2, -32601],
    ]);
    expect(answers[0]!.error.message).toBe(
      "the method 'eth_subscribe' needs a WebSocket: connect to /v1/ws/ethereum/devnet (see docs/websocket.md)",
    );
  });

  it.each([
    ['not JSON', 'nope', /not valid JSON/],
    ['empty body', '', /empty/],
    ['a JSON string', '"eth_blockNumber"', /JSON-RPC request object or a batch/],
    ['an empty batch', '[]', /'batch'.*not 0/],
    [
      'a batch of 1,001',
      JSON.stringify(Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' }))),
      /'batch'.*1 to 1000 calls, not 1001/,
    ],
  ])('refuses %s with 400 invalid_request', async (_name, body, message) => {
    const response = await t.rpc(key, body);
    expect(response.status).toBe(400);
    const payload = (await response.json()) as { error: { code: string; message: string; status: number } };
    expect(payload.error.code).toBe('invalid_request');
    expect(payload.error.status).toBe(400);
    expect(payload.error.message).toMatch(message);
  });

  it("accepts a batch of exactly 1,000, Alchemy's limit", async () => {
    const response = await t.rpc(
      key,
      Array.from({ length: 1000 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' })),
    );
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: number; result: string }[];
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 1000 }, (_, id) => id));
    expect(answers.every((a) => a.result === '0x7a69')).toBe(true);
  });

  it("serves viem's batching transport as it sends by default: 300 reads made at once go as one batch", async () => {
    const requests: number[] = [];
    const client = createPublicClient({
      chain: foundry,
      transport: http(`${t.url}/v1/rpc/ethereum/devnet/${key}`, {
        batch: true,
        retryCount: 0,
        onFetchRequest: async (request) => {
          requests.push((JSON.parse(await request.clone().text()) as unknown[]).length);
        },
      }),
    });
    const numbers = await Promise.all(Array.from({ length: 300 }, () => client.request({ method: 'eth_blockNumber' })));
    expect(requests).toEqual([300]);
    for (const number of numbers) expect(number).toMatch(/^0x[0-9a-f]+$/);
  });

  it('404 for an unknown chain or network, naming what is configured', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
    const chain = await t.rpc(key, call, '/v1/rpc/bitcoin/mainnet');
    expect(chain.status).toBe(404);
    expect(((await chain.json()) as { error: { message: string } }).error.message).toMatch(/unknown chain 'bitcoin'.*ethereum/);
    const network = await t.rpc(key, call, '/v1/rpc/ethereum/goerli');
    expect(network.status).toBe(404);
    expect(((await network.json()) as { error: { message: string } }).error.message).toMatch(/no network 'goerli'.*devnet/);
  });

  it('works with curl-style form content type and Bearer auth', async () => {
    const response = await fetch(`${t.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  });

  it('charges compute units per call: a batch costs the sum', async () => {
    const { key: freeKey } = await t.createKey({ plan: 'free' });
    const first = await t.rpc(freeKey, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    const cuAfterOne = Number(first.headers.get('x-ratelimit-remaining-cu'));
    expect(first.headers.get('x-ratelimit-limit-cu')).toBe('200');
    const second = await t.rpc(freeKey, [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getStorageAt', params: [recipient, '0x0', '0x1'] },
    ]);
    expect(second.status).toBe(200);
    const remaining = Number(second.headers.get('x-ratelimit-remaining-cu'));
    // Within one second window: 200 - 1 - (1 + 20); across a window boundary the count restarts.
    expect([199 - 21, 200 - 21]).toContain(remaining);
    expect(cuAfterOne).toBe(199);
  });

  it('refuses node-control methods on networks that do not allow them', async () => {
    const { key: liveKey } = await t.createKey({ environment: 'live' });
    const response = await t.rpc(
      liveKey,
      { jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [recipient, '0x1'] },
      '/v1/rpc/ethereum/mainnet',
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32601);
    expect(body.error.message).toMatch(/not available on ethereum\/mainnet/);
    const allowed = await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] });
    expect(((await allowed.json()) as { result: unknown }).result).toBe('0x0');
  });
});
