import { afterEach, describe, expect, it } from 'vitest';
import type { LogsWording } from '../support/provider-sim/logs-range-cap.ts';
import {
  call,
  cleanUp,
  funded,
  hex,
  numberer,
  post,
  type Reply,
  result,
  rpc,
  simOverAnvil,
  sleep,
} from './support/sim-over-anvil.ts';

afterEach(cleanUp);

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
