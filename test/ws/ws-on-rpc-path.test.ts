import { Alchemy, AlchemySubscription } from 'alchemy-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { upgrade } from './support/upgrade.ts';
import { eventually } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

interface Message {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { subscription: string; result: { number: string } };
}

/** A real `ws` client: its messages in order, and calls answered by id. */
async function openSocket(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const messages: Message[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let nextId = 1;
  return {
    messages,
    async call(method: string, params: unknown[] = []): Promise<Message> {
      const id = nextId++;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return eventually(() => messages.find((message) => message.id === id));
    },
    close: () => socket.close(),
  };
}

/**
 * The providers serve WebSocket on the JSON-RPC URL itself, and alchemy-sdk's `ws` opens its socket on
 * the URL it was given: `/v1/rpc/{chain}/{network}[/{apiKey}]` upgrades as `/v1/ws/...` does, with the
 * same authentication and the same session (issue 35, item 8).
 */
describe('a WebSocket upgrade on the JSON-RPC path', () => {
  let s: WsTestService;
  let key: string;
  let rpcPath: string;
  beforeAll(async () => {
    s = await startWsTestService();
    key = (await s.t.createKey()).key;
    rpcPath = `${s.t.url.replace('http://', 'ws://')}/v1/rpc/ethereum/devnet`;
  });
  afterAll(() => s?.stop());

  it('a ws client on /v1/rpc/{chain}/{network}/{apiKey}: calls answered, a newHeads subscription gets the mined block', async () => {
    const socket = await openSocket(`${rpcPath}/${key}`);
    try {
      expect((await socket.call('eth_chainId')).result).toBe('0x7a69');
      const subscription = (await socket.call('eth_subscribe', ['newHeads'])).result as string;
      expect(subscription).toMatch(/^0x/);
      const start = BigInt((await s.anvilCall('eth_blockNumber')) as string);
      await s.anvilCall('evm_mine');
      const head = await eventually(() =>
        socket.messages.find((message) => message.method === 'eth_subscription' && BigInt(message.params!.result.number) > start),
      );
      expect(head.params!.subscription).toBe(subscription);
    } finally {
      socket.close();
    }
  });

  it('the same authentication: the key in a header on the key-less path works; none, a bad one or another one is 401', async () => {
    const socket = await openSocket(rpcPath, { 'x-api-key': key });
    try {
      expect((await socket.call('eth_chainId')).result).toBe('0x7a69');
    } finally {
      socket.close();
    }
    expect((await upgrade(rpcPath)).status).toBe(401);
    const bad = await upgrade(`${rpcPath}/svc_test_${'A'.repeat(44)}`);
    expect([bad.status, bad.upgraded, bad.body.includes('A'.repeat(44))]).toEqual([401, false, false]);
    const other = (await s.t.createKey()).key;
    expect((await upgrade(`${rpcPath}/${key}`, { 'x-api-key': other })).status).toBe(401);
    expect((await upgrade(`${s.t.url.replace('http://', 'ws://')}/v1/rpc/ethereum/nowhere/${key}`)).status).toBe(404);
    // A plain HTTP POST on the same URL is still the JSON-RPC endpoint.
    const post = await s.t.rpc(undefined, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, `/v1/rpc/ethereum/devnet/${key}`);
    expect(await post.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  });
});

/**
 * alchemy-sdk's own `ws` given Blockyard's HTTP URL (`new Alchemy({ url })`): it opens its socket on
 * that URL. Its networks are Alchemy's (mainnet unless told), so the service serves a chain 1 here.
 */
describe("alchemy-sdk's ws on the URL it was given", () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let t: TestService;
  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil({ chainId: 1 }), createTestDatabase()]);
    t = await startTestService({
      sharing: { anvil, database },
      chains: [{ chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams: [{ url: anvil.url, ws_url: anvil.wsUrl }] }],
    });
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  it('its provider answers calls and its block subscription gets the mined blocks', async () => {
    const { key } = await t.createKey({ environment: 'live' });
    const alchemy = new Alchemy({ url: `${t.url}/v1/rpc/ethereum/mainnet/${key}`, maxRetries: 0 });
    const provider = await alchemy.config.getWebSocketProvider();
    const blocks: number[] = [];
    try {
      expect(await provider.send('eth_chainId', [])).toBe('0x1');
      alchemy.ws.on('block', (block: number) => blocks.push(block));
      const start = Number(await provider.send('eth_blockNumber', []));
      // The subscription is made once the provider has polled its first block: mine until one is seen.
      await eventually(async () => {
        await anvilMine(anvil.url);
        return blocks.some((block) => block > start) ? true : undefined;
      });
    } finally {
      // Removing the listener sends eth_unsubscribe: it is answered before the socket closes.
      alchemy.ws.removeAllListeners();
      await eventually(async () => ((await openSubscriptions(t, 'newHeads')) === 0 ? true : undefined));
      await provider.destroy();
    }
  });

  it('its mined-transactions subscription (alchemy_minedTransactions) gets a transaction to the address it watches', async () => {
    const { key } = await t.createKey({ environment: 'live' });
    const alchemy = new Alchemy({ url: `${t.url}/v1/rpc/ethereum/mainnet/${key}`, maxRetries: 0 });
    const provider = await alchemy.config.getWebSocketProvider();
    const watched = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
    const seen: { removed: boolean; transaction: { hash: string; to: string; value: string } }[] = [];
    try {
      alchemy.ws.on({ method: AlchemySubscription.MINED_TRANSACTIONS, addresses: [{ to: watched }] }, (item) => seen.push(item));
      await eventually(async () => ((await openSubscriptions(t, 'alchemy_minedTransactions')) === 1 ? true : undefined));
      const hash = await anvilCall(anvil.url, 'eth_sendTransaction', [
        { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: watched, value: '0x2a' },
      ]);
      await anvilCall(anvil.url, 'eth_sendTransaction', [
        { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: '0x1' },
      ]);
      await eventually(() => (seen.length > 0 ? true : undefined));
      expect(seen[0]).toMatchObject({ removed: false, transaction: { hash, to: watched, value: '0x2a' } });
    } finally {
      alchemy.ws.removeAllListeners();
      await eventually(async () => ((await openSubscriptions(t, 'alchemy_minedTransactions')) === 0 ? true : undefined));
      await provider.destroy();
    }
    expect(seen).toHaveLength(1);
  });
});

/** Subscriptions of a kind open on the service now (its metrics). */
async function openSubscriptions(t: TestService, kind: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`blockyard_ws_subscriptions{kind="${kind}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

async function anvilMine(url: string): Promise<void> {
  await anvilCall(url, 'evm_mine', []);
}

async function anvilCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return ((await response.json()) as { result: unknown }).result;
}
