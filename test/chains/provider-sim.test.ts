import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import type { SimBehaviour } from '../support/provider-sim/behaviour.ts';
import type { LogsWording } from '../support/provider-sim/logs-range-cap.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';

/** Runtime code that logs an empty LOG0 on any call: PUSH1 0 PUSH1 0 LOG0 STOP. */
const emitterCode = '0x60006000a000';
/** Runtime code that returns the block number it runs in: NUMBER PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const blockNumberCode = '0x4360005260206000f3';
const emitter = '0x00000000000000000000000000000000000e1117';
const numberer = '0x000000000000000000000000000000000000b10c';
// anvil's first default account, unlocked for eth_sendTransaction.
const funded = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

interface Reply {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh anvil with `blocks` empty blocks mined, and a simulator in front of it. */
async function simOverAnvil(behaviour: Partial<SimBehaviour> = {}, blocks = 0): Promise<{ anvil: Devnet; sim: ProviderSim }> {
  const anvil = await startTestAnvil();
  cleanups.push(() => anvil.stop());
  if (blocks > 0) await result(anvil.url, 'anvil_mine', [hex(blocks)]);
  const sim = await startProviderSim({ upstream: anvil.url, upstreamWs: anvil.wsUrl, behaviour });
  cleanups.push(() => sim.close());
  return { anvil, sim };
}

const hex = (value: number) => `0x${value.toString(16)}`;

function post(url: string, body: unknown, timeoutMs = 10_000): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

async function rpc(url: string, method: string, params: unknown[] = []): Promise<Reply> {
  return (await (await post(url, call(method, params))).json()) as Reply;
}

async function result<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(url, method, params);
  if (reply.error !== undefined) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

/** Sends a transaction from the funded account and waits (bounded) until automine has put it in a block. */
async function mined(url: string, transaction: object): Promise<{ hash: string; blockNumber: number }> {
  const hash = await result<string>(url, 'eth_sendTransaction', [{ from: funded, ...transaction }]);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const receipt = await result<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt !== null) return { hash, blockNumber: Number(receipt.blockNumber) };
    if (Date.now() > deadline) throw new Error(`${hash} not mined within 5 s`);
    await sleep(10);
  }
}

async function blockHash(url: string, number: number): Promise<string> {
  return (await result<{ hash: string }>(url, 'eth_getBlockByNumber', [hex(number), false])).hash;
}

/** A test WebSocket client that keeps every message, with bounded waits. */
async function openClient(url: string) {
  const socket = new WebSocket(url);
  const messages: Reply[] = [];
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Reply));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  cleanups.push(async () => socket.terminate());
  const waitFor = async (predicate: (message: Reply) => boolean, timeoutMs = 5_000): Promise<Reply> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no such WebSocket message within ${timeoutMs} ms`);
      await sleep(10);
    }
  };
  const request = (method: string, params: unknown[], id: number) => {
    socket.send(JSON.stringify(call(method, params, id)));
    return waitFor((message) => message.id === id);
  };
  const heads = () => messages.filter(isNotification).map(headerNumber);
  return { socket, messages, closed, waitFor, request, heads };
}

function isNotification(message: Reply): boolean {
  return (message as { method?: string }).method === 'eth_subscription';
}

const isHead = (number: number) => (message: Reply) => isNotification(message) && headerNumber(message) === number;

function headerNumber(message: Reply): number {
  return Number((message as unknown as { params: { result: { number: string } } }).params.result.number);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('lagBlocks: a node N blocks behind', () => {
  it('says the real head minus N as its block number, never below 0', async () => {
    const { sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x7');
    sim.set({ lagBlocks: 20 });
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x0');
    sim.reset();
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0xa');
  });

  it('answers null for a block above its head, by number and by hash, in every block method', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    const above = await blockHash(anvil.url, 8);
    const atHead = await blockHash(anvil.url, 7);
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['0x8', false]],
      ['eth_getBlockByHash', [above, false]],
      ['eth_getBlockReceipts', ['0x8']],
      ['eth_getBlockReceipts', [above]],
      ['eth_getBlockTransactionCountByNumber', ['0x8']],
      ['eth_getBlockTransactionCountByHash', [above]],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x8', '0x0']],
    ] as const) {
      expect(await rpc(sim.url, method, [...params]), method).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    }
    expect(await blockHash(sim.url, 7)).toBe(atHead);
    expect(await result(sim.url, 'eth_getBlockByHash', [atHead, false])).toMatchObject({ number: '0x7' });
    expect(await result(sim.url, 'eth_getBlockReceipts', [atHead])).toEqual([]);
  });

  it('resolves latest, pending, safe and finalized against its own head (anvil: safe 32, finalized 64 below)', async () => {
    // anvil's own pending block is head + 1; the lagging node answers pending as its latest.
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 3 }, 100);
    const numberAt = async (url: string, tag: string) =>
      Number((await result<{ number: string }>(url, 'eth_getBlockByNumber', [tag, false])).number);
    const tags = ['latest', 'pending', 'safe', 'finalized'];
    expect(await Promise.all(tags.map((tag) => numberAt(anvil.url, tag)))).toEqual([100, 101, 68, 36]);
    expect(await Promise.all(tags.map((tag) => numberAt(sim.url, tag)))).toEqual([97, 97, 65, 33]);
    sim.set({ lagBlocks: 90 });
    expect(await Promise.all(tags.map((tag) => numberAt(sim.url, tag)))).toEqual([10, 10, 0, 0]);
  });

  it('knows no transaction mined above its head until its head reaches that block', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 }, 5);
    const { hash, blockNumber } = await mined(anvil.url, { to: numberer, value: '0x1' });
    expect(blockNumber).toBe(6);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
    expect(await result(sim.url, 'eth_getTransactionByHash', [hash])).toBeNull();

    await result(anvil.url, 'anvil_mine', ['0x1']);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
    await result(anvil.url, 'anvil_mine', ['0x1']);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toMatchObject({ blockNumber: '0x6', status: '0x1' });
    expect(await result(sim.url, 'eth_getTransactionByHash', [hash])).toMatchObject({ hash, blockNumber: '0x6' });
  });

  it('serves logs only up to its head: ranges clipped, a range above it empty, a block hash above it "unknown block"', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 });
    await result(anvil.url, 'anvil_setCode', [emitter, emitterCode]);
    for (let i = 0; i < 5; i++) await mined(anvil.url, { to: emitter });
    const logBlocks = async (url: string, filter: object) =>
      (await result<{ blockNumber: string }[]>(url, 'eth_getLogs', [{ address: emitter, ...filter }])).map((log) =>
        Number(log.blockNumber),
      );

    expect(await logBlocks(anvil.url, { fromBlock: '0x0', toBlock: 'latest' })).toEqual([1, 2, 3, 4, 5]);
    expect(await logBlocks(sim.url, { fromBlock: '0x0', toBlock: 'latest' })).toEqual([1, 2, 3]);
    expect(await logBlocks(sim.url, { fromBlock: '0x2', toBlock: '0x5' })).toEqual([2, 3]);
    expect(await logBlocks(sim.url, { fromBlock: '0x4', toBlock: '0x5' })).toEqual([]);
    expect(await logBlocks(sim.url, { fromBlock: '0x0' })).toEqual([1, 2, 3]);
    expect(await logBlocks(sim.url, { blockHash: await blockHash(anvil.url, 2) })).toEqual([2]);
    expect((await rpc(sim.url, 'eth_getLogs', [{ blockHash: await blockHash(anvil.url, 4) }])).error).toEqual({
      code: -32000,
      message: 'unknown block',
    });
  });

  it('runs state reads at its head, and says "header not found" for a block above it', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 4 });
    // Set before the blocks are mined, so that the code is in the state of every one of them.
    await result(anvil.url, 'anvil_setCode', [numberer, blockNumberCode]);
    await result(anvil.url, 'anvil_mine', ['0xa']);
    const fresh = '0x00000000000000000000000000000000000f7e54';
    expect((await mined(anvil.url, { to: fresh, value: '0x64' })).blockNumber).toBe(11);
    const blockOfCall = async (...block: unknown[]) =>
      Number(await result<string>(sim.url, 'eth_call', [{ to: numberer }, ...block]));

    // The real head is 11 (the transfer's block): this node's is 7.
    expect(await blockOfCall('latest')).toBe(7);
    expect(await blockOfCall()).toBe(7);
    expect(await blockOfCall('0x5')).toBe(5);
    expect(await blockOfCall({ blockNumber: '0x6' })).toBe(6);
    expect(await result(anvil.url, 'eth_getBalance', [fresh, 'latest'])).toBe('0x64');
    expect(await result(sim.url, 'eth_getBalance', [fresh, 'latest'])).toBe('0x0');
    expect(await result(sim.url, 'eth_getTransactionCount', [funded])).toBe('0x0');

    const headerNotFound = { code: -32000, message: 'header not found' };
    expect((await rpc(sim.url, 'eth_getBalance', [fresh, '0xb'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_call', [{ to: numberer }, '0x8'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_getStorageAt', [numberer, '0x0', '0x9'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_getCode', [numberer, { blockHash: await blockHash(anvil.url, 9) }])).error).toEqual({
      code: -32000,
      message: 'header for hash not found',
    });
  });
});

describe('alternate: a load balancer over two unsynced nodes', () => {
  it('answers successive HTTP requests honestly, then N behind, and so on; a batch is one request', async () => {
    const { sim } = await simOverAnvil({ alternate: { lagBlocks: 3 } }, 10);
    const heads: unknown[] = [];
    for (let i = 0; i < 4; i++) heads.push(await result(sim.url, 'eth_blockNumber'));
    expect(heads).toEqual(['0xa', '0x7', '0xa', '0x7']);
    const batch = (await (
      await post(sim.url, [call('eth_blockNumber', [], 1), call('eth_blockNumber', [], 2)])
    ).json()) as Reply[];
    expect(batch.map((reply) => reply.result)).toEqual(['0xa', '0xa']);
    expect(await result(sim.url, 'eth_getBlockByNumber', ['0xa', false])).toBeNull();
  });
});

describe('rateLimit', () => {
  it("http style: over the limit, HTTP 429 with Retry-After and Infura's JSON-RPC body; refused calls counted apart", async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 5, style: 'http', retryAfterS: 3 } });
    const responses: Response[] = [];
    for (let i = 0; i < 12; i++) responses.push(await post(sim.url, call('eth_chainId', [], i)));
    const statuses = responses.map((response) => response.status);
    const served = statuses.filter((status) => status === 200).length;
    // Five in the bucket, and at most one more refilled while the twelve went out.
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(served).toBeLessThanOrEqual(6);
    const refused = responses.find((response) => response.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      id: statuses.indexOf(429),
      error: {
        code: -32005,
        message: 'project ID request rate exceeded',
        data: { rate: { allowed_rps: 5, backoff_seconds: 3 } },
      },
    });
    expect([sim.calls(), sim.calls('eth_chainId'), sim.refused()]).toEqual([12, 12, 12 - served]);
    expect([sim.receivedTimes.length, sim.servedTimes.length, sim.callTimes.length]).toEqual([12, served, 12]);
  });

  it('http style refuses a batch whole, with id null, without spending the bucket', async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 4, style: 'http' } });
    const tooMany = await post(
      sim.url,
      Array.from({ length: 10 }, (_, i) => call('eth_chainId', [], i)),
    );
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers.get('retry-after')).toBe('1');
    expect(await tooMany.json()).toMatchObject({ id: null, error: { code: -32005 } });
    const fits = await post(
      sim.url,
      Array.from({ length: 3 }, (_, i) => call('eth_chainId', [], i)),
    );
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as Reply[]).map((reply) => reply.result)).toEqual(['0x7a69', '0x7a69', '0x7a69']);
    expect(sim.refused()).toBe(10);
  });

  it("jsonrpc style: HTTP 200 and, per refused call, code 429 in Alchemy's words", async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 4, style: 'jsonrpc' } });
    const response = await post(
      sim.url,
      Array.from({ length: 10 }, (_, i) => call('eth_chainId', [], i)),
    );
    expect(response.status).toBe(200);
    const replies = (await response.json()) as Reply[];
    expect(replies.map((reply) => reply.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(replies.slice(0, 4).map((reply) => reply.result)).toEqual(['0x7a69', '0x7a69', '0x7a69', '0x7a69']);
    for (const reply of replies.slice(4)) {
      expect(reply.error?.code).toBe(429);
      expect(reply.error?.message).toMatch(/^Your app has exceeded its compute units per second capacity\./);
    }
    expect(sim.refused()).toBe(6);
  });

  it('refills the bucket at rps per second', async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 10, style: 'http' } });
    const batchOf = (size: number) =>
      post(
        sim.url,
        Array.from({ length: size }, (_, i) => call('eth_chainId', [], i)),
      );
    expect((await batchOf(10)).status).toBe(200);
    expect((await batchOf(2)).status).toBe(429);
    await sleep(500);
    expect((await batchOf(4)).status).toBe(200);
  });
});

const wideRangeRefusals: [LogsWording, number, number, string, unknown?][] = [
  [
    'alchemy',
    -32600,
    200,
    'You can make eth_getLogs requests with up to a 10000 block range. Based on your parameters, this block range should work: [0x10, 0x271f]',
  ],
  [
    'infura',
    -32005,
    200,
    'query returned more than 10000 results. Try with this block range [0x10, 0x271F].',
    { from: '0x10', limit: 10000, to: '0x271F' },
  ],
  ['quicknode', -32614, 413, 'eth_getLogs is limited to a 10,000 range'],
  ['geth', -32602, 200, 'exceed maximum block range 10000'],
  ['ankr', -32000, 200, 'maximum [from, to] blocks distance: 10000'],
  ['generic', -32000, 200, 'exceed maximum block range: 10000'],
];

describe("logsRangeCap: eth_getLogs over too many blocks, in each provider's words", () => {
  it.each(wideRangeRefusals)(
    '%s: code %i and HTTP %i for a lone call, in its own words',
    async (wording, code, status, message, data) => {
      const { sim } = await simOverAnvil({ logsRangeCap: { max: 10_000, wording } });
      const response = await post(sim.url, call('eth_getLogs', [{ fromBlock: '0x10', toBlock: hex(16 + 20_000) }]));
      expect(response.status).toBe(status);
      expect(((await response.json()) as Reply).error).toEqual({ code, message, ...(data === undefined ? {} : { data }) });
      // Inside a batch the refusal is one element of an HTTP 200 answer.
      const batch = await post(sim.url, [
        call('eth_chainId'),
        call('eth_getLogs', [{ fromBlock: '0x10', toBlock: '0x4e30' }], 2),
      ]);
      expect(batch.status).toBe(200);
      expect(((await batch.json()) as Reply[])[1]!.error?.code).toBe(code);
    },
  );

  it.each([
    ['alchemy', 'blocks'],
    ['infura', 'blocks'],
    ['quicknode', 'distance'],
    ['geth', 'distance'],
    ['ankr', 'distance'],
    ['generic', 'distance'],
  ] as const)('%s measures a range in %s: the boundary is where that provider puts it', async (wording, measure) => {
    // anvil refuses a fromBlock above its head: 20 blocks put 0x10 below it.
    const { sim } = await simOverAnvil({ logsRangeCap: { max: 10_000, wording } }, 20);
    const logsOver = async (blocks: number) =>
      rpc(sim.url, 'eth_getLogs', [{ fromBlock: '0x10', toBlock: hex(16 + blocks - 1) }]);
    expect(await logsOver(10_000)).toMatchObject({ result: [] });
    if (measure === 'blocks') expect((await logsOver(10_001)).error).toBeDefined();
    else expect(await logsOver(10_001)).toMatchObject({ result: [] });
    expect((await logsOver(10_002)).error).toBeDefined();
  });

  it('resolves latest against the node head before measuring', async () => {
    const { sim } = await simOverAnvil({ logsRangeCap: { max: 5, wording: 'geth' }, lagBlocks: 2 }, 22);
    // This node's head is 20: 15..latest is 5 apart, 14..latest is 6.
    expect(await rpc(sim.url, 'eth_getLogs', [{ fromBlock: '0xf', toBlock: 'latest' }])).toMatchObject({ result: [] });
    expect((await rpc(sim.url, 'eth_getLogs', [{ fromBlock: '0xe' }])).error?.message).toBe('exceed maximum block range 5');
  });
});

describe('pruneBelowBlocks: a non-archive node', () => {
  it("answers state older than head - K with geth's missing trie node error naming the block's state root", async () => {
    const { anvil, sim } = await simOverAnvil({ pruneBelowBlocks: 4 }, 10);
    const stateRoot = async (number: number) =>
      (await result<{ stateRoot: string }>(anvil.url, 'eth_getBlockByNumber', [hex(number), false])).stateRoot.slice(2);
    expect((await rpc(sim.url, 'eth_getBalance', [funded, '0x5'])).error).toEqual({
      code: -32000,
      message: `missing trie node ${await stateRoot(5)} (path ) <nil>`,
    });
    expect((await rpc(sim.url, 'eth_call', [{ to: numberer }, '0x1'])).error?.message).toBe(
      `missing trie node ${await stateRoot(1)} (path ) <nil>`,
    );
    expect(await rpc(sim.url, 'eth_getBalance', [funded, '0x6'])).toMatchObject({ result: expect.any(String) });
    expect(await rpc(sim.url, 'eth_getBalance', [funded, 'latest'])).toMatchObject({ result: expect.any(String) });
    expect(await rpc(sim.url, 'eth_getBlockByNumber', ['0x1', false])).toMatchObject({ result: { number: '0x1' } });

    sim.set({ pruneWording: 'historical-state', lagBlocks: 2 });
    // Head 8 now: 3 is pruned, 4 is not.
    expect((await rpc(sim.url, 'eth_getCode', [numberer, '0x3'])).error).toEqual({
      code: -32000,
      message: `historical state ${await stateRoot(3)} is not available`,
    });
    expect(await rpc(sim.url, 'eth_getCode', [numberer, '0x4'])).toMatchObject({ result: '0x' });
  });
});

describe('stall: a frozen node', () => {
  it('accepts a request and never answers it until the stall ends; closes at once with requests held', async () => {
    const { sim } = await simOverAnvil({ stall: true });
    const timedOut = await post(sim.url, call('eth_chainId'), 300).catch((error: Error) => error);
    expect(timedOut).toMatchObject({ name: 'TimeoutError' });
    const held = post(sim.url, call('eth_chainId', [], 7));
    await sleep(100);
    expect(sim.calls('eth_chainId')).toBe(2);

    sim.set({ stall: false });
    expect(await (await held).json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' });
    expect(await result(sim.url, 'eth_chainId')).toBe('0x7a69');

    sim.set({ stall: true });
    const heldAtClose = post(sim.url, call('eth_chainId')).catch((error: Error) => error);
    await sleep(100);
    const closing = performance.now();
    await sim.close();
    expect(performance.now() - closing).toBeLessThan(1_000);
    expect(await heldAtClose).toBeInstanceOf(Error);
  });

  it('holds WebSocket answers too, and sends them when the stall ends', async () => {
    const { sim } = await simOverAnvil({}, 3);
    const client = await openClient(sim.wsUrl);
    sim.set({ stall: true });
    client.socket.send(JSON.stringify(call('eth_blockNumber', [], 5)));
    await sleep(300);
    expect(client.messages).toEqual([]);
    sim.set({ stall: false });
    expect(await client.waitFor((message) => message.id === 5)).toEqual({ jsonrpc: '2.0', id: 5, result: '0x3' });
  });
});

describe('html502: a proxy whose backend is down', () => {
  it("answers HTTP 502 with nginx's HTML page, and refuses a WebSocket upgrade the same way", async () => {
    const { sim } = await simOverAnvil({ html502: true });
    const response = await post(sim.url, call('eth_chainId'));
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    const page = await response.text();
    expect(page).toContain('<center><h1>502 Bad Gateway</h1></center>');
    expect(page).toContain('<hr><center>nginx</center>');
    await expect(openClient(sim.wsUrl)).rejects.toThrow(/502/);
    expect(sim.calls('eth_chainId')).toBe(1);
  });
});

describe('chainId: the wrong chain behind the URL', () => {
  it('says the configured chain in eth_chainId (hex) and net_version (decimal), over HTTP and WebSocket', async () => {
    const { sim } = await simOverAnvil({ chainId: 8453 }, 2);
    expect(await result(sim.url, 'eth_chainId')).toBe('0x2105');
    expect(await result(sim.url, 'net_version')).toBe('8453');
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x2');
    const client = await openClient(sim.wsUrl);
    expect((await client.request('eth_chainId', [], 1)).result).toBe('0x2105');
    expect((await client.request('net_version', [], 2)).result).toBe('8453');
  });
});

describe('latencyMs', () => {
  it('delays every answer', async () => {
    const { sim } = await simOverAnvil({ latencyMs: 250 });
    const started = performance.now();
    expect(await result(sim.url, 'eth_chainId')).toBe('0x7a69');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe('batches', () => {
  it('answers an array in request order, each element by the same rules, each counted as a call', async () => {
    const { sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    const response = await post(sim.url, [
      call('eth_blockNumber', [], 'a'),
      call('eth_getBlockByNumber', ['0x9', false], 2),
      call('eth_chainId', [], 3),
      call('eth_getBlockByNumber', ['0x7', false], 4),
      call('eth_noSuchMethod', [], 5),
    ]);
    const replies = (await response.json()) as Reply[];
    expect(replies.map((reply) => reply.id)).toEqual(['a', 2, 3, 4, 5]);
    expect(replies.slice(0, 3).map((reply) => reply.result)).toEqual(['0x7', null, '0x7a69']);
    expect(replies[3]!.result).toMatchObject({ number: '0x7' });
    expect(replies[4]!.error?.code).toBe(-32601);
    expect([sim.calls(), sim.calls('eth_getBlockByNumber')]).toEqual([5, 2]);
  });
});

describe('WebSocket', () => {
  it('holds newHeads back until the real head is N blocks past them, and releases them when the lag drops', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 }, 5);
    const client = await openClient(sim.wsUrl);
    const subscription = await client.request('eth_subscribe', ['newHeads'], 1);
    expect(subscription.result).toMatch(/^0x[0-9a-f]{32}$/);
    expect((await client.request('eth_blockNumber', [], 2)).result).toBe('0x3');

    for (let i = 0; i < 3; i++) await result(anvil.url, 'evm_mine');
    await client.waitFor(isHead(6));
    await sleep(200);
    // Real head 8: this node's newest is 6.
    expect(client.heads()).toEqual([4, 5, 6]);
    const first = client.messages.find(isNotification);
    expect(first).toMatchObject({
      params: { subscription: subscription.result, result: { hash: await blockHash(anvil.url, 4) } },
    });

    sim.set({ lagBlocks: 0 });
    await client.waitFor(isHead(8));
    expect(client.heads()).toEqual([4, 5, 6, 7, 8]);

    expect((await client.request('eth_unsubscribe', [subscription.result], 3)).result).toBe(true);
    expect((await client.request('eth_unsubscribe', [subscription.result], 4)).result).toBe(false);
    await result(anvil.url, 'evm_mine');
    await sleep(200);
    expect(client.heads()).toEqual([4, 5, 6, 7, 8]);
  });

  it('counts and rate-limits WebSocket calls like HTTP ones, a refusal as a JSON-RPC error', async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 2, style: 'jsonrpc' } });
    const client = await openClient(sim.wsUrl);
    client.socket.send(JSON.stringify([1, 2, 3, 4].map((id) => call('eth_chainId', [], id))));
    const batch = (await client.waitFor((message) => Array.isArray(message))) as unknown as Reply[];
    expect(batch.map((reply) => reply.result ?? reply.error?.code)).toEqual(['0x7a69', '0x7a69', 429, 429]);
    expect([sim.calls('eth_chainId'), sim.refused()]).toEqual([4, 2]);
  });

  it('dropSockets terminates every client connection; a new one is served', async () => {
    const { sim } = await simOverAnvil();
    const clients = await Promise.all([openClient(sim.wsUrl), openClient(sim.wsUrl)]);
    sim.dropSockets();
    const codes = await Promise.race([Promise.all(clients.map((client) => client.closed)), sleep(2_000).then(() => 'open')]);
    expect(codes).toEqual([1006, 1006]);
    const again = await openClient(sim.wsUrl);
    expect((await again.request('eth_chainId', [], 1)).result).toBe('0x7a69');
  });
});
