import { NftFilters, NftOrdering } from 'alchemy-sdk';
import { type Address, createWalletClient, getAddress, http, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts, spamTarget } from '../../src/demo/demo-plan.ts';
import { type AlchemyDemo, startAlchemyDemo } from './support/alchemy-demo.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type Body = any;

const { alice, bob } = demoAccounts;
/** anvil's well-known keys of accounts 2 (bob) and 3 (carol). */
const bobKey = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const carolKey = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const apes = parseAbi([
  'function mint(address to, uint256 tokenId)',
  'function transferFrom(address from, address to, uint256 id)',
]);
const items = parseAbi(['function mint(address to, uint256 id, uint256 value)']);
const checksummed = (address: string) => getAddress(address);

/**
 * The AIRDROPS filter of getNFTsForOwner and getContractsForOwner, by Alchemy's definition (an NFT
 * minted to its holder in a transaction another address sent), and getNFTsForOwner's
 * orderBy=transferTime. Over the real indexer, with tokens minted by their holder, minted to them by
 * someone else, and received by transfer, each in its own block.
 */
describe("Alchemy's owner lists: the AIRDROPS filter and orderBy=transferTime", () => {
  let t: AlchemyDemo;
  const held = (owned: { contract: { address: string }; tokenId: string }[]) =>
    owned.map((nft) => `${nft.contract.address}/${nft.tokenId}`);

  async function get(path: string, query: string): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${t.url}/${path}?${query}`, { signal: AbortSignal.timeout(10_000) });
    const body = await response.json();
    t.check('GET', `/v1/rpc/{chain}/{network}/{apiKey}/${path}`, response.status, body);
    return { status: response.status, body };
  }

  /** Sends the call and waits for it; the block it landed in. */
  async function send(key: `0x${string}`, address: Address, abi: typeof apes | typeof items, name: string, args: unknown[]) {
    const transport = http(t.chain.service.anvil.url);
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(key) });
    // biome-ignore lint/suspicious/noExplicitAny: one helper for both ABIs
    const hash = await wallet.writeContract({ address, abi, functionName: name, args } as any);
    return Number((await t.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 })).blockNumber);
  }
  /** The block each of bob's tokens of beforeAll came to him in, by `contract/tokenId`. */
  const cameIn = new Map<string, number>();

  beforeAll(async () => {
    t = await startAlchemyDemo();
    const { nft, items: itemsContract } = t.demo;
    const ape = (id: number) => `${checksummed(nft)}/${id}`;
    const item = (id: number) => `${checksummed(itemsContract)}/${id}`;
    cameIn.set(ape(201), await send(carolKey, nft, apes, 'mint', [bob, 201n])); // airdropped to bob
    cameIn.set(ape(202), await send(bobKey, nft, apes, 'mint', [bob, 202n])); // minted by bob himself
    await send(carolKey, nft, apes, 'mint', [demoAccounts.carol, 203n]);
    cameIn.set(ape(203), await send(carolKey, nft, apes, 'transferFrom', [demoAccounts.carol, bob, 203n])); // received, not minted to bob
    cameIn.set(item(9), await send(carolKey, itemsContract, items, 'mint', [bob, 9n, 3n])); // an ERC-1155 airdrop
    cameIn.set(item(10), await send(bobKey, itemsContract, items, 'mint', [bob, 10n, 2n]));
    await send(carolKey, nft, apes, 'mint', [bob, 204n]); // airdropped to bob, who passes it on
    await send(bobKey, nft, apes, 'transferFrom', [bob, alice, 204n]);
    await send(carolKey, nft, apes, 'mint', [spamTarget, 205n]); // an airdrop that is not spam
    await t.chain.synced();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  it('getNFTsForOwner: excludeFilters AIRDROPS leaves out what others minted to the owner, includeFilters keeps only that', async () => {
    const { nft, items: itemsContract } = t.demo;
    const ape = (id: number) => `${checksummed(nft)}/${id}`;
    const item = (id: number) => `${checksummed(itemsContract)}/${id}`;
    const sorted = (ids: string[]) => [...ids].sort();

    const all = await t.alchemy.nft.getNftsForOwner(bob);
    expect(sorted(held(all.ownedNfts))).toEqual(
      sorted([ape(6), ape(201), ape(202), ape(203), item(1), item(2), item(9), item(10)]),
    );
    const kept = await t.alchemy.nft.getNftsForOwner(bob, { excludeFilters: [NftFilters.AIRDROPS] });
    expect(sorted(held(kept.ownedNfts))).toEqual(sorted([ape(6), ape(202), ape(203), item(1), item(2), item(10)]));
    expect(kept.totalCount).toBe(6);
    const airdrops = await t.alchemy.nft.getNftsForOwner(bob, { includeFilters: [NftFilters.AIRDROPS] });
    expect(sorted(held(airdrops.ownedNfts))).toEqual(sorted([ape(201), item(9)]));
    expect(airdrops.totalCount).toBe(2);
    expect(airdrops.ownedNfts.find((owned) => owned.tokenId === '9')?.balance).toBe('3');

    // A token airdropped to bob and passed on by him is, for its new holder, a transfer.
    expect(held((await t.alchemy.nft.getNftsForOwner(alice, { includeFilters: [NftFilters.AIRDROPS] })).ownedNfts)).toEqual([]);
    expect(held((await t.alchemy.nft.getNftsForOwner(alice)).ownedNfts)).toContain(ape(204));
  });

  it('both filters: includeFilters keeps what matches either, excludeFilters leaves out what matches either', async () => {
    const spamToken = `${checksummed(t.demo.spamNft)}/1`;
    const ape = (id: number) => `${checksummed(t.demo.nft)}/${id}`;
    const sorted = (ids: string[]) => [...ids].sort();
    const owned = async (filters: { includeFilters?: NftFilters[]; excludeFilters?: NftFilters[] }) =>
      sorted(held((await t.alchemy.nft.getNftsForOwner(spamTarget, filters)).ownedNfts));

    // The spam target holds the spam collection's token 1 (airdropped, spam) and ape 205 (airdropped).
    expect(await owned({})).toEqual(sorted([spamToken, ape(205)]));
    expect(await owned({ includeFilters: [NftFilters.SPAM] })).toEqual([spamToken]);
    expect(await owned({ includeFilters: [NftFilters.AIRDROPS] })).toEqual(sorted([spamToken, ape(205)]));
    expect(await owned({ includeFilters: [NftFilters.SPAM, NftFilters.AIRDROPS] })).toEqual(sorted([spamToken, ape(205)]));
    expect(await owned({ excludeFilters: [NftFilters.SPAM] })).toEqual([ape(205)]);
    expect(await owned({ excludeFilters: [NftFilters.SPAM, NftFilters.AIRDROPS] })).toEqual([]);
    expect(await owned({ excludeFilters: [NftFilters.SPAM], includeFilters: [NftFilters.AIRDROPS] })).toEqual([ape(205)]);
  });

  it('pages under the filter, and a page key stays bound to it', async () => {
    const pages: string[] = [];
    let pageKey: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer: { status: number; body: Body } = await get(
        'getNFTsForOwner',
        `owner=${bob}&withMetadata=false&excludeFilters[]=AIRDROPS&pageSize=4${pageKey ? `&pageKey=${pageKey}` : ''}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.totalCount).toBe(6);
      pages.push(...answer.body.ownedNfts.map((nft: Body) => `${nft.contractAddress}/${nft.tokenId}`));
      pageKey = answer.body.pageKey;
      if (pageKey === null) break;
    }
    const whole = await get('getNFTsForOwner', `owner=${bob}&withMetadata=false&excludeFilters[]=AIRDROPS`);
    expect(pages).toEqual(whole.body.ownedNfts.map((nft: Body) => `${nft.contractAddress}/${nft.tokenId}`));
    expect(pages).toHaveLength(6);

    const first = await get('getNFTsForOwner', `owner=${bob}&withMetadata=false&excludeFilters[]=AIRDROPS&pageSize=1`);
    const elsewhere = await get('getNFTsForOwner', `owner=${bob}&withMetadata=false&pageSize=1&pageKey=${first.body.pageKey}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toMatch(/^invalid parameter 'pageKey'/);
  });

  it('getContractsForOwner counts only the tokens the filter keeps', async () => {
    const { nft, items: itemsContract } = t.demo;
    const summary = (contracts: Body[]) =>
      contracts.map((c) => [c.address, c.totalBalance, c.numDistinctTokensOwned, c.displayNft?.tokenId]);
    const airdrops = await t.alchemy.nft.getContractsForOwner(bob, { includeFilters: [NftFilters.AIRDROPS] });
    expect(summary(airdrops.contracts)).toEqual(
      [
        [checksummed(nft), '1', '1', '201'],
        [checksummed(itemsContract), '3', '1', '9'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(airdrops.totalCount).toBe(2);
    const kept = await t.alchemy.nft.getContractsForOwner(bob, { excludeFilters: [NftFilters.AIRDROPS] });
    expect(summary(kept.contracts)).toEqual(
      [
        [checksummed(nft), '3', '3', '6'],
        [checksummed(itemsContract), '107', '3', '1'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    // Only airdrops of a collection the owner holds nothing else of: the collection is gone without them.
    const clean = await get('getContractsForOwner', `owner=${spamTarget}&excludeFilters[]=AIRDROPS`);
    expect(clean.body).toEqual({ contracts: [], totalCount: 0, pageKey: null });
  });

  it('REST owned NFTs: is_airdrop on each, exclude_airdrops=true leaves them out', async () => {
    const key = t.url.split('/').at(-1)!;
    const owned = async (query = '') => {
      const response = await fetch(`${t.chain.service.url}/v1/nfts/ethereum/owned/${bob}${query}`, {
        headers: { 'x-api-key': key },
        signal: AbortSignal.timeout(10_000),
      });
      const body: Body = await response.json();
      t.check('GET', '/v1/nfts/{chain}/owned/{address}', response.status, body);
      return { status: response.status, body };
    };
    const all = await owned();
    const flagged = all.body.nfts.filter((nft: Body) => nft.is_airdrop).map((nft: Body) => `${nft.contract}/${nft.token_id}`);
    expect(flagged.sort()).toEqual([`${t.demo.nft.toLowerCase()}/201`, `${t.demo.items.toLowerCase()}/9`].sort());
    const kept = await owned('?exclude_airdrops=true&limit=4');
    expect(kept.body.total).toBe(6);
    expect(kept.body.nfts).toHaveLength(4);
    expect(kept.body.nfts.every((nft: Body) => nft.is_airdrop === false)).toBe(true);
    const bad = await owned('?exclude_airdrops=2');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('exclude_airdrops');
  });

  it('refuses a filter named in both lists, and an unknown one, naming the parameter', async () => {
    const both = await get('getNFTsForOwner', `owner=${bob}&excludeFilters[]=AIRDROPS&includeFilters[]=AIRDROPS`);
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/^invalid parameter 'includeFilters'/);
    const unknown = await get('getContractsForOwner', `owner=${bob}&excludeFilters[]=AIRDROP`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^invalid parameter 'excludeFilters'/);
  });

  it('orderBy=transferTime: the newest acquired first, each with acquiredAt, paged; a new transfer in moves a token up', async () => {
    const { nft, items: itemsContract } = t.demo;
    const item9 = `${checksummed(itemsContract)}/9`;
    const newest = [
      `${checksummed(itemsContract)}/10`,
      item9,
      `${checksummed(nft)}/203`,
      `${checksummed(nft)}/202`,
      `${checksummed(nft)}/201`,
    ];
    const answer = await t.alchemy.nft.getNftsForOwner(bob, { orderBy: NftOrdering.TRANSFERTIME });
    const listed = held(answer.ownedNfts);
    expect(listed.slice(0, 5)).toEqual(newest);
    expect(listed.slice(5).sort()).toEqual(
      [`${checksummed(nft)}/6`, `${checksummed(itemsContract)}/1`, `${checksummed(itemsContract)}/2`].sort(),
    );
    expect(answer.totalCount).toBe(8);
    const blocks = answer.ownedNfts.map((owned) => owned.acquiredAt?.blockNumber);
    for (const [i, id] of newest.entries()) expect(blocks[i]).toBe(cameIn.get(id));
    expect([...blocks].sort((a, b) => b! - a!)).toEqual(blocks);
    const block = await t.chain.publicClient.getBlock({ blockNumber: BigInt(cameIn.get(item9)!) });
    expect(answer.ownedNfts[1]!.acquiredAt?.blockTimestamp).toBe(new Date(Number(block.timestamp) * 1000).toISOString());
    // Without the order, no acquiredAt: Alchemy gives it only with orderBy.
    expect((await t.alchemy.nft.getNftsForOwner(bob)).ownedNfts.every((owned) => owned.acquiredAt === undefined)).toBe(true);

    const pages: string[] = [];
    let pageKey: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query = `owner=${bob}&withMetadata=false&orderBy=transferTime&pageSize=3${pageKey ? `&pageKey=${pageKey}` : ''}`;
      const got: { status: number; body: Body } = await get('getNFTsForOwner', query);
      expect(got.status).toBe(200);
      pages.push(...got.body.ownedNfts.map((owned: Body) => `${owned.contractAddress}/${owned.tokenId}`));
      pageKey = got.body.pageKey;
      if (pageKey === null) break;
    }
    expect(pages).toEqual(listed);
    // The filters and the order go together.
    const airdrops = await t.alchemy.nft.getNftsForOwner(bob, {
      orderBy: NftOrdering.TRANSFERTIME,
      includeFilters: [NftFilters.AIRDROPS],
    });
    expect(held(airdrops.ownedNfts)).toEqual([item9, `${checksummed(nft)}/201`]);

    const again = await send(carolKey, itemsContract, items, 'mint', [bob, 9n, 1n]);
    await t.chain.synced();
    const moved = await t.alchemy.nft.getNftsForOwner(bob, { orderBy: NftOrdering.TRANSFERTIME });
    expect(held(moved.ownedNfts)[0]).toBe(item9);
    expect(moved.ownedNfts[0]!.acquiredAt?.blockNumber).toBe(again);
    cameIn.set(item9, again);
  });

  it('getContractsForOwner orderBy=transferTime: the collection whose token came last first, paged', async () => {
    const { nft, items: itemsContract, spamNft } = t.demo;
    const addresses = (answer: { contracts: { address: string }[] }) => answer.contracts.map((c) => c.address);
    const newest = await t.alchemy.nft.getContractsForOwner(bob, { orderBy: NftOrdering.TRANSFERTIME });
    expect(addresses(newest)).toEqual([checksummed(itemsContract), checksummed(nft)]);
    // The spam collection came to the spam target at the demo's deployment, ape 205 in beforeAll: newest first
    // is the address order. Another spam token now puts the spam collection (the higher address) first.
    const spam = parseAbi(['function airdrop(address[] recipients)']);
    const byAddress = [checksummed(nft), checksummed(spamNft)].sort();
    expect(addresses(await t.alchemy.nft.getContractsForOwner(spamTarget, { orderBy: NftOrdering.TRANSFERTIME }))).toEqual(
      byAddress,
    );
    const hash = await t.chain.wallet.writeContract({
      address: spamNft,
      abi: spam,
      functionName: 'airdrop',
      args: [[spamTarget]],
    });
    await t.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    await t.chain.synced();
    const target = await t.alchemy.nft.getContractsForOwner(spamTarget, { orderBy: NftOrdering.TRANSFERTIME });
    expect(addresses(target)).toEqual([checksummed(spamNft), checksummed(nft)]);
    expect(addresses(await t.alchemy.nft.getContractsForOwner(spamTarget))).toEqual(byAddress);

    const first = await get('getContractsForOwner', `owner=${spamTarget}&orderBy=transferTime&pageSize=1`);
    const second = await get(
      'getContractsForOwner',
      `owner=${spamTarget}&orderBy=transferTime&pageSize=1&pageKey=${first.body.pageKey}`,
    );
    expect([...first.body.contracts, ...second.body.contracts].map((c: Body) => c.address)).toEqual(addresses(target));
    expect(second.body.pageKey).toBeNull();
    const unordered = await get('getContractsForOwner', `owner=${spamTarget}&pageSize=1&pageKey=${first.body.pageKey}`);
    expect(unordered.status).toBe(400);
  });

  it('refuses another orderBy and a page key of the other order, naming the parameter', async () => {
    const bad = await get('getNFTsForOwner', `owner=${bob}&orderBy=transferTime_desc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^invalid parameter 'orderBy'/);
    const ordered = await get('getNFTsForOwner', `owner=${bob}&withMetadata=false&orderBy=transferTime&pageSize=1`);
    const plain = await get('getNFTsForOwner', `owner=${bob}&withMetadata=false&pageSize=1&pageKey=${ordered.body.pageKey}`);
    expect(plain.status).toBe(400);
    expect(plain.body.error.message).toMatch(/^invalid parameter 'pageKey'/);
  });

  it('a reorg undoes what it dropped: the airdrop (the token minted by its holder on the new branch is not one) and a newer acquisition', async () => {
    const { nft } = t.demo;
    const owned = async (filters: { includeFilters?: NftFilters[] } = {}) =>
      held((await t.alchemy.nft.getNftsForOwner(bob, { ...filters, contractAddresses: [nft] })).ownedNfts);
    const ape301 = `${checksummed(nft)}/301`;
    const acquired = async (id: string) =>
      (await t.alchemy.nft.getNftsForOwner(bob, { orderBy: NftOrdering.TRANSFERTIME })).ownedNfts.find(
        (owned) => `${owned.contract.address}/${owned.tokenId}` === id,
      )?.acquiredAt?.blockNumber;
    const item9 = `${checksummed(t.demo.items)}/9`;
    const snapshot = await t.chain.anvilRpc('evm_snapshot');
    await send(carolKey, nft, apes, 'mint', [bob, 301n]);
    const dropped = await send(carolKey, t.demo.items, items, 'mint', [bob, 9n, 1n]);
    await t.chain.synced();
    expect(await owned({ includeFilters: [NftFilters.AIRDROPS] })).toContain(ape301);
    expect(await acquired(item9)).toBe(dropped);

    await t.chain.anvilRpc('evm_revert', [snapshot]);
    await send(bobKey, nft, apes, 'mint', [bob, 301n]);
    await t.chain.anvilRpc('anvil_mine', ['0x2']); // the new branch outgrows the dropped one
    await t.chain.synced();
    expect(await owned()).toContain(ape301);
    expect(await owned({ includeFilters: [NftFilters.AIRDROPS] })).not.toContain(ape301);
    // The undone transfer's holding is acquired where the transfers left on the chain say.
    expect(await acquired(item9)).toBe(cameIn.get(item9));
  });
});
