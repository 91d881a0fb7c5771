import { type AssetTransfersCategory, type AssetTransfersResult, SortingOrder } from 'alchemy-sdk';
import { type Abi, decodeEventLog, formatEther, formatUnits, type Hex, numberToHex, type PublicClient, pad } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts, demoItems, demoNft, demoToken } from '../../src/demo/demo-plan.ts';
import { type AlchemyChain, startAlchemyChain } from './support.ts';

const all = ['external', 'internal', 'erc20', 'erc721', 'erc1155'] as AssetTransfersCategory[];
const bob = demoAccounts.bob.toLowerCase();
const dev = demoAccounts.dev.toLowerCase();
const tokenId = (id: bigint) => pad(numberToHex(id), { size: 32 });

type Item = AssetTransfersResult & { metadata?: { blockTimestamp: string } };

/** What the chain says of an item: rebuilt from its transaction, trace or log, in Alchemy's fields. */
async function itemOnChain(
  client: PublicClient,
  rpc: (method: string, params: unknown[]) => Promise<unknown>,
  item: Item,
  abiOf: (contract: string) => Abi,
): Promise<Partial<Item>> {
  const hash = item.hash as Hex;
  const block = await client.getBlock({ blockNumber: BigInt(item.blockNum) });
  const metadata = { blockTimestamp: new Date(Number(block.timestamp) * 1000).toISOString() };
  if (item.category === 'external' || item.category === 'internal') {
    let moved: { from: string; to: string; value: bigint };
    if (item.category === 'external') {
      const tx = await client.getTransaction({ hash });
      moved = { from: tx.from, to: tx.to!, value: tx.value };
    } else {
      const path = item.uniqueId.split(':internal:')[1];
      const traces = (await rpc('trace_transaction', [hash])) as { traceAddress: number[]; action: Record<string, string> }[];
      const { action } = traces.find((trace) => trace.traceAddress.join('.') === path)!;
      moved = { from: action.from!, to: action.to!, value: BigInt(action.value!) };
    }
    return {
      metadata,
      from: moved.from.toLowerCase(),
      to: moved.to.toLowerCase(),
      value: Number(formatEther(moved.value)),
      asset: 'ETH',
      rawContract: { value: numberToHex(moved.value), address: null, decimal: '0x12' },
    };
  }
  const receipt = await client.getTransactionReceipt({ hash });
  const logIndex = Number(item.uniqueId.split(':log:')[1]);
  const log = receipt.logs.find((entry) => entry.logIndex === logIndex)!;
  const event = decodeEventLog({ abi: abiOf(log.address.toLowerCase()), data: log.data, topics: log.topics }) as unknown as {
    eventName: string;
    args: { from: string; to: string; id: bigint; ids: bigint[]; value: bigint; values: bigint[]; tokenId: bigint };
  };
  const { args } = event;
  const base = { metadata, from: args.from.toLowerCase(), to: args.to.toLowerCase() };
  const contract = log.address.toLowerCase();
  if (event.eventName === 'TransferBatch' || event.eventName === 'TransferSingle') {
    const ids = event.eventName === 'TransferBatch' ? args.ids : [args.id];
    const values = event.eventName === 'TransferBatch' ? args.values : [args.value];
    const erc1155Metadata = ids.map((id, i) => ({ tokenId: tokenId(id), value: numberToHex(values[i]!) }));
    return {
      ...base,
      value: null,
      erc1155Metadata,
      tokenId: null,
      rawContract: { value: null, address: contract, decimal: null },
    };
  }
  if (item.category === 'erc721') {
    const id = tokenId(args.tokenId);
    return {
      ...base,
      value: null,
      erc721TokenId: id,
      tokenId: id,
      rawContract: { value: null, address: contract, decimal: null },
    };
  }
  return {
    ...base,
    value: Number(formatUnits(args.value, 6)),
    asset: 'BDUSD',
    rawContract: { value: numberToHex(args.value), address: contract, decimal: '0x6' },
  };
}

describe('alchemy_getAssetTransfers through alchemy-sdk (new Alchemy({ url }))', () => {
  let t: AlchemyChain;
  beforeAll(async () => {
    t = await startAlchemyChain();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  const onChain = (item: Item) =>
    itemOnChain(
      t.chain.publicClient,
      (method, params) => t.chain.anvilRpc(method, params),
      item,
      (contract) => t.abis.get(contract)!,
    );
  /** Every page of a query, following pageKey (bounded: 50 pages). */
  async function allPages(params: Parameters<AlchemyChain['alchemy']['core']['getAssetTransfers']>[0]): Promise<Item[][]> {
    const pages: Item[][] = [];
    let pageKey: string | undefined;
    for (let i = 0; i < 50; i++) {
      const answer = await t.alchemy.core.getAssetTransfers({ ...params, ...(pageKey ? { pageKey } : {}) });
      pages.push(answer.transfers as Item[]);
      pageKey = answer.pageKey;
      if (pageKey === undefined) return pages;
    }
    throw new Error('more than 50 pages');
  }

  it("returns the demo's transfers of every category with the values the chain has", async () => {
    const answer = await t.alchemy.core.getAssetTransfers({
      toAddress: bob,
      category: all,
      withMetadata: true,
      fromBlock: '0x0',
    });
    expect(answer.pageKey).toBeUndefined();
    const transfers = answer.transfers as Item[];
    // The ERC-1155 TransferBatch to bob is one item, as Alchemy lists it.
    expect(transfers.map((item) => item.category).sort()).toEqual(['erc1155', 'erc20', 'erc721', 'external', 'internal']);
    for (const item of transfers) {
      expect(item).toMatchObject(await onChain(item));
      expect(item.to).toBe(bob);
      expect(item.blockNum).toMatch(/^0x[0-9a-f]+$/);
    }
    const byCategory = (category: string) => transfers.find((item) => item.category === category)!;
    expect(byCategory('external')).toMatchObject({ from: dev, value: 1.5, uniqueId: `${byCategory('external').hash}:external` });
    expect(byCategory('internal')).toMatchObject({ from: t.forwarder, value: 1.23e-16, rawContract: { value: '0x7b' } });
    expect(byCategory('erc20')).toMatchObject({
      value: Number(formatUnits(demoToken.transfers[1]!.amount, 6)),
      rawContract: { address: t.demo.token.toLowerCase(), decimal: '0x6' },
    });
    expect(byCategory('erc721')).toMatchObject({
      tokenId: tokenId(demoNft.transfers[2]!.id),
      erc1155Metadata: null,
      asset: 'BDAPE',
    });
    expect(byCategory('erc1155').asset).toBe('BDITEM');
    expect(byCategory('erc1155').erc1155Metadata).toEqual(
      demoItems.batchTransfer.ids.map((id, i) => ({
        tokenId: tokenId(id),
        value: numberToHex(demoItems.batchTransfer.amounts[i]!),
      })),
    );
    for (const item of transfers) expect(item.metadata!.blockTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('pages by pageKey through more than one page, in both orders, with no duplicate and no gap', async () => {
    for (const side of [{ fromAddress: dev }, { toAddress: dev }]) {
      const whole = (await t.alchemy.core.getAssetTransfers({ ...side, category: all })).transfers as Item[];
      expect(whole.length).toBeGreaterThan(6);
      for (const order of [SortingOrder.ASCENDING, SortingOrder.DESCENDING]) {
        const pages = await allPages({ ...side, category: all, maxCount: 3, order });
        expect(pages.length).toBe(Math.ceil(whole.length / 3));
        expect(pages.slice(0, -1).every((page) => page.length === 3)).toBe(true);
        const ids = pages.flat().map((item) => item.uniqueId);
        expect(new Set(ids).size).toBe(ids.length);
        const expected = whole.map((item) => item.uniqueId);
        expect(ids).toEqual(order === SortingOrder.ASCENDING ? expected : expected.reverse());
      }
      const blocks = whole.map((item) => Number(item.blockNum));
      expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
    }
    // A page of one item ending inside a batch still carries the whole batch (the mint of three ids).
    const [mint] = (
      await t.alchemy.core.getAssetTransfers({ toAddress: dev, category: ['erc1155' as AssetTransfersCategory], maxCount: 1 })
    ).transfers as Item[];
    expect(mint!.erc1155Metadata!.map((entry) => BigInt(entry.tokenId))).toEqual(demoItems.mint.ids);
  });

  it('filters by contract (token transfers only), block range and metadata as Alchemy does', async () => {
    const token = t.demo.token.toLowerCase();
    const filtered = await t.alchemy.core.getAssetTransfers({
      toAddress: bob,
      contractAddresses: [t.demo.token],
      category: ['external', 'erc20', 'erc721'] as AssetTransfersCategory[],
    });
    // The contract list leaves native transfers in and keeps only that contract's token transfers.
    expect(filtered.transfers.map((item) => [item.category, item.rawContract.address]).sort()).toEqual([
      ['erc20', token],
      ['external', null],
    ]);
    expect(filtered.transfers.every((item) => !('metadata' in item))).toBe(true);

    const native = filtered.transfers.find((item) => item.category === 'external')!;
    const one = await t.alchemy.core.getAssetTransfers({
      toAddress: bob,
      category: all,
      fromBlock: native.blockNum,
      toBlock: native.blockNum,
    });
    expect(one.transfers.map((item) => item.uniqueId)).toEqual([native.uniqueId]);
    const both = await t.alchemy.core.getAssetTransfers({ fromAddress: dev, toAddress: bob, category: all });
    expect(both.transfers.every((item) => item.from === dev && item.to === bob)).toBe(true);
    expect(both.transfers.map((item) => item.category).sort()).toEqual(['erc1155', 'erc20', 'erc721', 'external']);
  });

  it('answers bad params with -32602 naming the parameter', async () => {
    await expect(t.alchemy.core.getAssetTransfers({ category: ['bogus' as AssetTransfersCategory] })).rejects.toMatchObject({
      error: { code: -32602 },
    });
    const refused = async (params: Record<string, unknown>) => (await t.rpc('alchemy_getAssetTransfers', [params])).error;
    expect(await refused({ category: ['erc20', 'bogus'] })).toEqual({
      code: -32602,
      message: expect.stringMatching(/^invalid parameter 'category': unknown category 'bogus'/),
    });
    expect((await refused({}))?.message).toMatch(/^invalid parameter 'category': is required/);
    expect((await refused({ category: ['erc20'], maxCount: '0x3e9' }))?.message).toMatch(/^invalid parameter 'maxCount'/);
    expect((await refused({ category: ['erc20'], fromAdress: dev }))?.message).toMatch(/^invalid parameter 'fromAdress'/);
    expect((await refused({ category: ['erc20'], toAddress: '0x12' }))?.message).toMatch(/^invalid parameter 'toAddress'/);
    expect((await refused({ category: ['erc20'], pageKey: 'not-a-key' }))?.message).toMatch(
      /^invalid parameter 'pageKey': is not a page key/,
    );
    const first = await t.alchemy.core.getAssetTransfers({ fromAddress: dev, category: all, maxCount: 1 });
    expect(first.pageKey).toBeDefined();
    expect(await refused({ fromAddress: bob, category: all, pageKey: first.pageKey })).toEqual({
      code: -32602,
      message: expect.stringMatching(/^invalid parameter 'pageKey': belongs to another query/),
    });
    // The same query with another page size takes the key.
    expect(
      (await t.rpc('alchemy_getAssetTransfers', [{ fromAddress: dev, category: all, pageKey: first.pageKey, maxCount: '0x2' }]))
        .error,
    ).toBeUndefined();
    // So does the same query with its default fromBlock spelled out, as Alchemy's examples write it.
    for (const fromBlock of ['0x0', 'earliest']) {
      const next = await t.rpc('alchemy_getAssetTransfers', [
        { fromAddress: dev, category: all, fromBlock, pageKey: first.pageKey },
      ]);
      expect(next.error, fromBlock).toBeUndefined();
    }
  });
});
