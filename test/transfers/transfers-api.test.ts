import { type Abi, type Address, type Hex, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileContracts } from '../../src/contracts/compile.ts';
import { demoAccounts, demoItems, demoNft, demoToken } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, deployDemo } from '../../src/demo/deploy-demo.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService } from '../support/service.ts';
import { type ApiTransfer, forwarderInitCode, transferOnChain } from './chain-check.ts';

const bob = demoAccounts.bob.toLowerCase();
const dev = demoAccounts.dev.toLowerCase();

/** The transfers API over the real indexer, on the demo's contracts and a devnet's native and internal transfers. */
describe('GET /v1/transfers/{chain}/{address}', () => {
  let chain: IndexedChain;
  let key: string;
  let demo: DemoDeployment;
  let abis: Map<string, Abi>;
  let forwarder: string;
  let check: ReturnType<typeof createResponseChecker>;

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  async function get(address: string, query = ''): Promise<{ status: number; body: any }> {
    const response = await fetch(`${chain.service.url}/v1/transfers/ethereum/${address}${query ? `?${query}` : ''}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.json();
    // Every answer, 200 or error, matches the OpenAPI document the service publishes.
    check('GET', '/v1/transfers/{chain}/{address}', response.status, body);
    return { status: response.status, body };
  }
  async function list(address: string, query = ''): Promise<ApiTransfer[]> {
    const answer = await get(address, `limit=100${query ? `&${query}` : ''}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.page_key).toBeUndefined();
    return answer.body.transfers;
  }
  /** Every page of a query, following page_key (bounded: 50 pages). */
  async function allPages(address: string, query: string): Promise<ApiTransfer[][]> {
    const pages: ApiTransfer[][] = [];
    let pageKey: string | undefined;
    for (let i = 0; i < 50; i++) {
      const answer = await get(address, `${query}${pageKey ? `&page_key=${pageKey}` : ''}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      pages.push(answer.body.transfers);
      pageKey = answer.body.page_key;
      if (pageKey === undefined) return pages;
    }
    throw new Error('more than 50 pages');
  }

  beforeAll(async () => {
    chain = await startIndexedChain();
    key = (await chain.service.createKey()).key;
    const doc = (await (await fetch(`${chain.service.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    check = createResponseChecker(doc);
    const rpcUrl = chain.service.anvil.url;
    demo = await deployDemo({ rpcUrl, log: { info: () => undefined } });
    const artifacts = await compileContracts();
    abis = new Map<string, Abi>([
      [demo.token.toLowerCase(), artifacts.DemoToken.abi],
      [demo.nft.toLowerCase(), artifacts.DemoNft.abi],
      [demo.items.toLowerCase(), artifacts.DemoItems.abi],
    ]);
    // A native transfer to bob, and an internal one: a contract forwarding what it gets to bob.
    await chain.wallet.sendTransaction({ to: demoAccounts.bob, value: parseEther('1.5') });
    const deploy = await chain.wallet.deployContract({ abi: [], bytecode: forwarderInitCode(bob) });
    forwarder = (await chain.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!.toLowerCase();
    await chain.wallet.sendTransaction({ to: forwarder as Address, value: 123n });
    // The token's metadata is never asked for here: the transfers API reads it itself (symbol, decimals).
    await chain.synced();
  }, 180_000);
  afterAll(() => chain?.service.stop());

  const onChain = (item: ApiTransfer) =>
    transferOnChain(
      chain.publicClient,
      (method, params) => chain.anvilRpc(method, params),
      item,
      (contract) => abis.get(contract)!,
    );

  it('lists every category with the values the chain has', async () => {
    const transfers = await list(bob);
    expect(transfers.map((t) => t.category).sort()).toEqual(['erc1155', 'erc1155', 'erc20', 'erc721', 'internal', 'native']);
    for (const item of transfers) expect(item).toMatchObject(await onChain(item));
    const byCategory = (category: string) => transfers.filter((t) => t.category === category);
    expect(byCategory('erc20')[0]).toMatchObject({
      from: dev,
      contract: demo.token.toLowerCase(),
      value: demoToken.transfers[1]!.amount.toString(),
      token_id: null,
      decimals: 6,
      symbol: 'BDUSD',
    });
    expect(byCategory('erc721')[0]).toMatchObject({ token_id: String(demoNft.transfers[2]!.id), value: '1', decimals: null });
    expect(byCategory('erc1155').map((t) => [t.token_id, t.value])).toEqual(
      demoItems.batchTransfer.ids.map((id, i) => [String(id), String(demoItems.batchTransfer.amounts[i])]),
    );
    expect(byCategory('native')[0]).toMatchObject({
      from: dev,
      value: parseEther('1.5').toString(),
      log_index: null,
      contract: null,
      token_id: null,
      decimals: 18,
      symbol: 'ETH',
    });
    expect(byCategory('internal')[0]).toMatchObject({ from: forwarder, to: bob, value: '123', log_index: null, contract: null });
    for (const item of transfers) expect(item.block_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('pages in both orders with no duplicate and no gap', async () => {
    const full = await list(dev);
    expect(full.length).toBeGreaterThan(15);
    for (const order of ['asc', 'desc'] as const) {
      const pages = await allPages(dev, `limit=4&order=${order}`);
      expect(pages.length).toBe(Math.ceil(full.length / 4));
      expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
      const ids = pages.flat().map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
      const expected = full.map((t) => t.id);
      expect(ids).toEqual(order === 'asc' ? expected : expected.reverse());
    }
    const blocks = full.map((t) => t.block_number);
    expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
  });

  it('filters by direction, category, contract and block range', async () => {
    const all = await list(dev);
    const sent = await list(dev, 'direction=out');
    const received = await list(dev, 'direction=in');
    expect(sent.every((t) => t.from === dev)).toBe(true);
    expect(received.every((t) => t.to === dev)).toBe(true);
    expect(sent.length + received.length).toBe(all.length);

    const comma = await list(bob, 'category=erc20,native');
    const repeated = await list(bob, 'category=native&category=erc20');
    expect(comma.map((t) => t.category).sort()).toEqual(['erc20', 'native']);
    expect(repeated).toEqual(comma);

    const items = await list(dev, `contract=${demo.items}`);
    expect(items.length).toBe(demoItems.mint.ids.length + 1 + demoItems.batchTransfer.ids.length);
    expect(items.every((t) => t.contract === demo.items.toLowerCase() && t.category === 'erc1155')).toBe(true);

    const middle = all[Math.floor(all.length / 2)]!.block_number;
    const ranged = await list(dev, `from_block=${middle}&to_block=${middle}`);
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged).toEqual(all.filter((t) => t.block_number === middle));
  });

  it('refuses bad input with 400 naming the parameter', async () => {
    const first = await get(dev, 'limit=2');
    const pageKey = first.body.page_key as string;
    expect(pageKey).toBeTypeOf('string');
    expect((await get(dev, `limit=2&page_key=${pageKey}`)).status).toBe(200);
    const cases: [string, string, RegExp][] = [
      [dev, 'category=erc20,erc777', /category.*unknown category 'erc777'/],
      [dev, `order=desc&page_key=${pageKey}`, /page_key.*another query/],
      [bob, `page_key=${pageKey}`, /page_key.*another query/],
      [dev, 'page_key=not-a-key', /page_key/],
      [dev, 'limit=0', /limit/],
      [dev, 'limit=101', /limit/],
      [dev, 'direction=sideways', /direction/],
      [dev, 'from_block=5&to_block=4', /to_block/],
      [dev, 'contract=0x123', /contract/],
      ['0x1234', '', /address/],
      [dev.replace('0xf', '0xF'), '', /address.*checksum/],
    ];
    for (const [address, query, message] of cases) {
      const answer = await get(address, query);
      expect(answer.status, `${address}?${query}`).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message).toMatch(message);
    }
  });

  it('needs the data:read scope', async () => {
    const narrow = (await chain.service.createKey({ scopes: ['rpc:read'] })).key;
    const response = await fetch(`${chain.service.url}/v1/transfers/ethereum/${bob}`, { headers: { 'x-api-key': narrow } });
    expect(response.status).toBe(403);
  });

  it('drops a reorged transfer and lists the new branch’s', async () => {
    const someone = privateKeyToAccount(`0x${'5'.repeat(64)}` as Hex).address.toLowerCase();
    const snapshot = await chain.anvilRpc('evm_snapshot');
    const dropped = await chain.wallet.sendTransaction({ to: someone as Address, value: 111n });
    await chain.synced();
    expect((await list(someone)).map((t) => [t.tx_hash, t.value])).toEqual([[dropped, '111']]);

    await chain.anvilRpc('evm_revert', [snapshot]);
    const kept = await chain.wallet.sendTransaction({ to: someone as Address, value: 222n });
    await chain.wallet.sendTransaction({ to: demoAccounts.carol, value: 1n });
    await chain.synced();
    const after = await list(someone);
    expect(after.map((t) => [t.tx_hash, t.value])).toEqual([[kept, '222']]);
    expect(after[0]).toMatchObject(await onChain(after[0]!));
  }, 60_000);
});

describe('GET /v1/transfers on a chain without its index', () => {
  it('answers 404 naming the setting', async () => {
    const t = await startTestService();
    try {
      const { key } = await t.createKey();
      const response = await fetch(`${t.url}/v1/transfers/ethereum/${bob}`, {
        headers: { 'x-api-key': key },
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/indexer\.enabled/);
    } finally {
      await t.stop();
    }
  }, 60_000);
});
