import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatchingClient } from '../../src/chains/batching-client.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { createUpstreamClient } from '../../src/chains/upstream-client.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { forwardTo, rpcAnswer, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';

const dev = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const call = (id: unknown, method: string, params?: unknown[]) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });

describe('calls that arrive together go to the node as one JSON-RPC batch', () => {
  let anvil: Devnet;
  let proxy: TestRpcServer;
  const direct = async (body: string) => {
    const response = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return (await response.text()).trim();
  };
  beforeAll(async () => {
    anvil = await startTestAnvil();
    proxy = await startRpcServer(forwardTo(anvil.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  it('answers each call byte for byte as the node answers it alone, ids included, in one exchange', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 20 });
    const bodies = [
      call(1, 'eth_chainId', []),
      call(1, 'eth_blockNumber', []),
      call('abc', 'eth_getBalance', [dev, 'latest']),
      call(7, 'eth_getTransactionCount', [dev, 'latest']),
      call(8, 'eth_getBlockByNumber', ['0x0', false]),
      call(9, 'web3_clientVersion'),
      call(10, 'eth_getBalance', ['0x1234', 'latest']), // invalid params: the node's own error
      call(11, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`]),
    ];
    const before = proxy.seen.length;
    const answers = await Promise.all(bodies.map((body) => client.send(body)));
    expect(proxy.seen.length - before).toBe(1);
    expect(proxy.seen.at(-1)!.body.startsWith('[')).toBe(true);
    const expected = await Promise.all(bodies.map(direct));
    expect(answers.map((a) => a.trim())).toEqual(expected);
    expect(answers[6]).toContain('"error"');
    await client.close();
  });

  it('sends a lone call as it came, and heavy or unusual calls alone', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 20 });
    const lone = call(3, 'eth_chainId', []);
    await client.send(lone);
    expect(proxy.seen.at(-1)!.body).toBe(lone);

    const before = proxy.seen.length;
    const heavy = call(4, 'eth_call', [{ to: dev, data: '0x' }, 'latest']);
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId', params: [] });
    const extraMember = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'eth_chainId', params: [], extra: 1 });
    await Promise.all([
      client.send(heavy),
      client.send(call(6, 'eth_chainId', [])),
      client.send(notification),
      client.send(extraMember),
    ]);
    const sent = proxy.seen.slice(before).map((seen) => seen.body);
    expect(sent).toHaveLength(4);
    expect(sent).toEqual(expect.arrayContaining([heavy, notification, extraMember, call(6, 'eth_chainId', [])]));
    await client.close();
  });

  it('splits what arrives together into batches of at most maxSize', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 10 });
    const before = proxy.seen.length;
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => client.send(call(i, 'eth_chainId', []))));
    const batches = proxy.seen.slice(before).map((seen) => JSON.parse(seen.body) as unknown[]);
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(answers.map((answer) => JSON.parse(answer))).toEqual(
      answers.map((_, i) => ({ jsonrpc: '2.0', id: i, result: '0x7a69' })),
    );
    await client.close();
  });

  it('spreads what arrives together over `spread` exchanges, so a node that runs a batch on one core uses its others', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 20, spread: 4 });
    const before = proxy.seen.length;
    const answers = await Promise.all(
      Array.from({ length: 22 }, (_, i) => client.send(call(i, 'eth_getBalance', [dev, 'latest']))),
    );
    const batches = proxy.seen.slice(before).map((seen) => JSON.parse(seen.body) as unknown[]);
    expect(batches.map((batch) => batch.length)).toEqual([6, 6, 6, 4]);
    const expected = (await direct(call(0, 'eth_getBalance', [dev, 'latest']))).replace('"id":0', '"id":ID');
    expect(answers).toEqual(answers.map((_, i) => expected.replace('"id":ID', `"id":${i}`)));
    // Fewer calls than the spread: each goes alone, as a lone call would.
    const few = proxy.seen.length;
    await Promise.all([client.send(call(1, 'eth_chainId', [])), client.send(call(2, 'eth_chainId', []))]);
    expect(proxy.seen.slice(few).map((seen) => seen.body)).toEqual([call(1, 'eth_chainId', []), call(2, 'eth_chainId', [])]);
    await client.close();
  });

  it('copies the params text of a call in the proxy layout into the batch unchanged, and parses any other layout', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 20 });
    const proxyLayout = `{"jsonrpc":"2.0","id":"a\\"b","method":"eth_getBalance","params":[ "${dev}" , {"blockNumber":"0x0"} ]}`;
    const otherOrder = `{"method":"eth_getTransactionCount","params":["${dev}","latest"],"id":5,"jsonrpc":"2.0"}`;
    const noParams = '{"jsonrpc":"2.0","id":6,"method":"eth_chainId"}';
    const before = proxy.seen.length;
    const answers = await Promise.all([proxyLayout, otherOrder, noParams].map((body) => client.send(body)));
    const sent = proxy.seen.slice(before).map((seen) => seen.body);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBe(
      `[{"jsonrpc":"2.0","id":0,"method":"eth_getBalance","params":[ "${dev}" , {"blockNumber":"0x0"} ]},` +
        `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":["${dev}","latest"]},` +
        '{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]',
    );
    expect(answers.map((answer) => JSON.parse(answer).id)).toEqual(['a"b', 5, 6]);
    expect(answers.map((answer) => answer.trim())).toEqual(await Promise.all([proxyLayout, otherOrder, noParams].map(direct)));
    await client.close();
  });

  it('idle, a call goes when its task ends; busy, the calls of a whole event-loop turn go together', async () => {
    const client = createBatchingClient(createUpstreamClient({ url: proxy.url }), { maxSize: 20 });
    /** Two calls made by two tasks of the same turn (as two sockets' requests are). */
    const twoTasks = (first: number) =>
      new Promise<Promise<string>[]>((resolve) => {
        const sends: Promise<string>[] = [];
        setImmediate(() => sends.push(client.send(call(first, 'eth_chainId', []))));
        setImmediate(() => {
          sends.push(client.send(call(first + 1, 'eth_chainId', [])));
          resolve(sends);
        });
      });

    let before = proxy.seen.length;
    await Promise.all(await twoTasks(1));
    // Idle: the first went alone at once, so the second found an exchange under way and went after it.
    expect(proxy.seen.slice(before).map((seen) => seen.body)).toEqual([call(1, 'eth_chainId', []), call(2, 'eth_chainId', [])]);

    before = proxy.seen.length;
    const slow = client.send(call(3, 'eth_getBalance', [dev, 'latest']));
    const answers = await Promise.all([slow, ...(await twoTasks(4))]);
    // Busy (the first exchange still under way): the two tasks' calls went as one batch.
    const sent = proxy.seen.slice(before).map((seen) => seen.body);
    expect(sent).toHaveLength(2);
    expect(JSON.parse(sent[1]!)).toHaveLength(2);
    expect(answers.slice(1).map((answer) => JSON.parse(answer).id)).toEqual([4, 5]);
    await client.close();
  });
});
describe('nodes that do not batch well', () => {
  const servers: TestRpcServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('a node that refuses batches gets each call alone, now and from then on', async () => {
    const node = await startRpcServer(async (body) =>
      body.startsWith('[')
        ? { body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches not supported' } }) }
        : { body: rpcAnswer(body, { result: '0x1' }) },
    );
    servers.push(node);
    const client = createBatchingClient(createUpstreamClient({ url: node.url }), { maxSize: 20 });
    const first = await Promise.all([client.send(call(1, 'eth_chainId', [])), client.send(call(2, 'eth_chainId', []))]);
    expect(first.map((a) => JSON.parse(a))).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 2, result: '0x1' },
    ]);
    expect(node.seen.map((seen) => seen.body.startsWith('['))).toEqual([true, false, false]);
    await Promise.all([client.send(call(3, 'eth_chainId', [])), client.send(call(4, 'eth_chainId', []))]);
    expect(node.seen.slice(3).map((seen) => seen.body.startsWith('['))).toEqual([false, false]);
    await client.close();
  });

  it('a call whose answer is missing from the batch is sent again alone; answers in any order are matched by id', async () => {
    const node = await startRpcServer(async (body) => {
      if (!body.startsWith('[')) return { body: rpcAnswer(body, { result: 'alone' }) };
      const calls = JSON.parse(body) as { id: number }[];
      // Reversed, and the first call's answer left out.
      const answers = calls.slice(1).map((c) => ({ jsonrpc: '2.0', id: c.id, result: `batched-${c.id}` }));
      return { body: JSON.stringify(answers.reverse()) };
    });
    servers.push(node);
    const client = createBatchingClient(createUpstreamClient({ url: node.url }), { maxSize: 20 });
    const answers = await Promise.all([10, 11, 12].map((id) => client.send(call(id, 'eth_chainId', []))));
    expect(answers.map((a) => JSON.parse(a))).toEqual([
      { jsonrpc: '2.0', id: 10, result: 'alone' },
      { jsonrpc: '2.0', id: 11, result: 'batched-1' },
      { jsonrpc: '2.0', id: 12, result: 'batched-2' },
    ]);
    await client.close();
  });

  it('a failed exchange fails every call in it with the transport error', async () => {
    const node = await startRpcServer(async () => ({ status: 503, body: 'overloaded' }));
    servers.push(node);
    const client = createBatchingClient(createUpstreamClient({ url: node.url }), { maxSize: 20 });
    const outcomes = await Promise.allSettled([client.send(call(1, 'eth_chainId', [])), client.send(call(2, 'eth_chainId', []))]);
    expect(node.seen).toHaveLength(1);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(UpstreamError);
    }
    await client.close();
  });
});
