import { type Block, createPublicClient, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { upgrade } from './support/upgrade.ts';
import { eventually } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

/** `{ws_url}/v1/ws/{chain}/{network}/{apiKey}`: the WebSocket endpoint for clients that take only a URL. */
describe('the WebSocket endpoint with the key in its path', () => {
  let s: WsTestService;
  let key: string;
  let base: string;
  useWsServiceWithKey((started) => {
    ({ s, key } = started);
    base = `${s.t.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet`;
  });

  it('viem webSocket(url): reads, and a newHeads subscription (watchBlocks) gets the mined blocks', async () => {
    const client = createPublicClient({
      chain: foundry,
      transport: webSocket(`${base}/${key}`, { retryCount: 0, timeout: 10_000 }),
      cacheTime: 0,
    });
    expect(await client.getChainId()).toBe(31337);
    const blocks: Block[] = [];
    const unwatch = client.watchBlocks({ onBlock: (block) => void blocks.push(block), emitOnBegin: false });
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) >= 1 ? true : undefined));
    const start = BigInt((await s.anvilCall('eth_blockNumber')) as string);
    await s.anvilCall('evm_mine');
    await s.anvilCall('evm_mine');
    await eventually(() => (blocks.length >= 2 ? true : undefined));
    blocks.sort((a, b) => Number(a.number! - b.number!));
    expect(blocks.map((block) => block.number)).toEqual([start + 1n, start + 2n]);
    unwatch();
    await (await client.transport.getRpcClient()).close();
  });

  it('a malformed or unknown key in the path: 401 before any upgrade; the key is not in the answer', async () => {
    for (const bad of ['not-a-key', `svc_test_${'A'.repeat(44)}`]) {
      const answer = await upgrade(`${base}/${bad}`);
      expect(answer.status).toBe(401);
      expect(answer.upgraded).toBe(false);
      expect(answer.body).not.toContain(bad);
    }
  });

  it('the key in the path and a different one in a header or ?apiKey=: 401; the same key: upgraded', async () => {
    const other = (await s.t.createKey()).key;
    expect((await upgrade(`${base}/${key}`, { 'x-api-key': other })).status).toBe(401);
    expect((await upgrade(`${base}/${key}`, { authorization: `Bearer ${other}` })).status).toBe(401);
    expect((await upgrade(`${base}/${key}?apiKey=${other}`)).status).toBe(401);
    expect((await upgrade(`${base}/${key}`, { 'x-api-key': key })).status).toBe(101);
    expect((await upgrade(`${base}/${key}/`)).status).toBe(101);
  });

  it('a path past the key is no route: 404 whose message shows only the key’s prefix', async () => {
    const answer = await upgrade(`${base}/${key}/more`);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain(key);
    expect(JSON.parse(answer.body).error.message).toBe(`no route GET /v1/ws/ethereum/devnet/${key.slice(0, 13)}…/more`);
  });
});
