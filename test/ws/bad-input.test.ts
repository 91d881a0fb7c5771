import { describe, expect, it } from 'vitest';
import { connectRaw, eventually } from './support/ws-client.ts';
import { startWsTestService, useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

describe('bad input over the WebSocket gets a clear error or close code; everyone else is served', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  it('malformed JSON is -32700, a non-call -32600, and the socket keeps serving', async () => {
    const client = await connectRaw(s.wsUrl(key));
    client.send('{"jsonrpc":"2.0","id":1,');
    expect((await client.waitFor((m) => m.error?.code === -32700)).error.message).toMatch(/not valid JSON/);
    client.send({ jsonrpc: '2.0', id: 'x' });
    expect(await client.waitFor((m) => m.id === 'x')).toMatchObject({
      error: { code: -32600, message: "Invalid request: 'method' must be a string" },
    });
    client.send('[]');
    expect((await client.waitFor((m) => m.error?.code === -32600 && /batch/.test(m.error.message))).error.message).toMatch(
      /not 0/,
    );
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    client.close();
  });

  it('a refused notification (no id) gets no answer, alone or in a batch, as on HTTP', async () => {
    const client = await connectRaw(s.wsUrl(key));
    client.send({ jsonrpc: '2.0', method: 'nope_unknownMethod', params: [] });
    client.send({ jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x1234'] });
    client.send([
      { jsonrpc: '2.0', method: 'nope_unknownMethod' },
      { jsonrpc: '2.0', id: 'k', method: 'eth_chainId', params: [] },
    ]);
    const batch = await client.waitFor(Array.isArray);
    expect(batch).toEqual([{ jsonrpc: '2.0', id: 'k', result: '0x7a69' }]);
    // Messages are answered in order: once a later call is answered, nothing more is owed for the first two.
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    expect(client.messages.filter((m) => !Array.isArray(m) && m.id === null)).toEqual([]);
    client.close();
  });

  it('a batch mixes subscriptions and proxied calls, in order', async () => {
    const client = await connectRaw(s.wsUrl(key));
    client.send([
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 'c', method: 'eth_subscribe', params: ['bogus'] },
    ]);
    const answer = await client.waitFor(Array.isArray);
    expect(answer.map((m: { id: string }) => m.id)).toEqual(['a', 'b', 'c']);
    expect(answer[0].result).toBe('0x7a69');
    expect(answer[1].result).toMatch(/^0x[0-9a-f]{32}$/);
    expect(answer[2].error.code).toBe(-32602);
    client.close();
  });

  it('an unknown subscription kind or bad filter is -32602 with a clear message', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const unknown = await client.call('eth_subscribe', ['newBlocks']);
    expect(unknown.error).toEqual({
      code: -32602,
      message:
        'unknown subscription kind "newBlocks": expected one of newHeads, logs, newPendingTransactions, syncing, alchemy_minedTransactions, alchemy_pendingTransactions',
    });
    const badAddress = await client.call('eth_subscribe', ['logs', { address: '0x1234' }]);
    expect(badAddress.error.code).toBe(-32602);
    expect(badAddress.error.message).toMatch(/'address'.*20-byte/);
    const badTopic = await client.call('eth_subscribe', ['logs', { topics: [null, ['0x12']] }]);
    expect(badTopic.error.message).toMatch(/topics\[1\]/);
    const noParams = await client.call('eth_subscribe', []);
    expect(noParams.error.code).toBe(-32602);
    expect((await client.call('eth_subscribe', ['syncing'])).result).toMatch(/^0x/);
    expect((await client.call('eth_subscribe', ['newPendingTransactions'])).result).toMatch(/^0x/);
    client.close();
  });

  it('unsubscribing an id that is not yours answers false and leaves it running', async () => {
    const owner = await connectRaw(s.wsUrl(key));
    const other = await connectRaw(s.wsUrl((await s.t.createKey()).key));
    const { result: id } = await owner.call('eth_subscribe', ['newHeads']);
    expect(await other.call('eth_unsubscribe', [id])).toMatchObject({ result: false });
    expect(await other.call('eth_unsubscribe', ['0xdeadbeef'])).toMatchObject({ result: false });
    expect((await other.call('eth_unsubscribe', [])).error.code).toBe(-32602);
    await s.anvilCall('evm_mine');
    await owner.waitFor((m) => m.params?.subscription === id);
    expect(await owner.call('eth_unsubscribe', [id])).toMatchObject({ result: true });
    expect(await owner.call('eth_unsubscribe', [id])).toMatchObject({ result: false });
    owner.close();
    other.close();
  });

  it('a frame over 1 MiB closes the connection with 1009; others are unaffected', async () => {
    const big = await connectRaw(s.wsUrl(key));
    const bystander = await connectRaw(s.wsUrl(key));
    big.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: ['x'.repeat(1024 * 1024 + 1)] }));
    const closed = await Promise.race([
      big.closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no close')), 10_000)),
    ]);
    expect(closed).toMatchObject({ code: 1009 });
    expect((await bystander.call('eth_chainId')).result).toBe('0x7a69');
    bystander.close();
  });

  it('per-connection subscription cap: the 101st is -32005', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const answers = await Promise.all(Array.from({ length: 101 }, () => client.call('eth_subscribe', ['newHeads'])));
    expect(answers.filter((a) => a.result).length).toBe(100);
    const refused = answers.find((a) => a.error)!;
    expect(refused.error.code).toBe(-32005);
    expect(refused.error.message).toMatch(/already has 100 subscriptions/);
    client.close();
  });

  it('a message over the rate limit gets -32005, not a close', async () => {
    const { key: freeKey } = await s.t.createKey({ plan: 'free' });
    const client = await connectRaw(s.wsUrl(freeKey));
    const answers = await Promise.all(Array.from({ length: 25 }, () => client.call('eth_blockNumber')));
    const limited = answers.filter((a) => a.error?.code === -32005);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].error.message).toMatch(/rate limit exceeded: requests per second; retry after 1 s/);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    await eventually(async () => ((await client.call('eth_chainId')).result === '0x7a69' ? true : undefined));
    client.close();
  });

  it('scopes apply per call: eth_sendRawTransaction without rpc:write is -32010', async () => {
    const client = await connectRaw(s.wsUrl((await s.t.createKey({ scopes: ['rpc:read'] })).key));
    const answer = await client.call('eth_sendRawTransaction', ['0x00']);
    expect(answer.error.code).toBe(-32010);
    expect(answer.error.message).toMatch(/rpc:write/);
    client.close();
  });

  it('eth_subscribe on a network without a ws_url: heads are served (polled), pending transactions say what is missing', async () => {
    const client = await connectRaw(s.wsUrl((await s.t.createKey({ environment: 'live' })).key, 'ethereum/mainnet'));
    expect((await client.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x[0-9a-f]{32}$/);
    const answer = await client.call('eth_subscribe', ['newPendingTransactions']);
    expect(answer.error.message).toMatch(/not available on ethereum\/mainnet: pending transactions need an upstream WebSocket/);
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    client.close();
  });

  it('a client closing mid-request leaves no subscription behind and crashes nothing', async () => {
    for (let i = 0; i < 5; i++) {
      const client = await connectRaw(s.wsUrl(key));
      client.send({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', true] });
      client.send({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] });
      client.ws.terminate();
    }
    const survivor = await connectRaw(s.wsUrl(key));
    expect((await survivor.call('eth_chainId')).result).toBe('0x7a69');
    survivor.close();
    await eventually(async () => ((await s.metric('blockyard_ws_connections')) === 0 ? true : undefined));
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) === 0 ? true : undefined));
  });
});

describe('graceful shutdown', () => {
  it('closes client sockets with 1001 and the upstream subscription', async () => {
    const s = await startWsTestService({ viaProxy: true });
    try {
      const { key } = await s.t.createKey();
      const client = await connectRaw(s.wsUrl(key));
      await client.call('eth_subscribe', ['newHeads']);
      await eventually(() => (s.proxy!.subscribes('newHeads') === 1 ? true : undefined));
      await s.t.service.stop('test');
      expect(await client.closed).toEqual({ code: 1001, reason: 'server shutting down' });
      expect(s.proxy!.connections).toBe(1);
      await eventually(() => (s.proxy!.open === 0 ? true : undefined));
    } finally {
      await s.stop();
    }
  });
});
