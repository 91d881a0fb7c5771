import { NftFilters } from 'alchemy-sdk';
import { type Address, createWalletClient, http, parseAbi } from 'viem';
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
const lower = (address: string) => address.toLowerCase();

/**
 * The AIRDROPS filter of getNFTsForOwner and getContractsForOwner, by Alchemy's definition: an NFT
 * minted to its holder in a transaction another address sent. Over the real indexer, with tokens
 * minted by their holder, minted to them by someone else, and received by transfer.
 */
describe("Alchemy's AIRDROPS filter", () => {
  let t: AlchemyDemo;
  const held = (owned: { contract: { address: string }; tokenId: string }[]) =>
    owned.map((nft) => `${nft.contract.address}/${nft.tokenId}`);

  async function get(path: string, query: string): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${t.url}/${path}?${query}`, { signal: AbortSignal.timeout(10_000) });
    const body = await response.json();
    t.check('GET', `/v1/rpc/{chain}/{network}/{apiKey}/${path}`, response.status, body);
    return { status: response.status, body };
  }

  async function send(key: `0x${string}`, address: Address, abi: typeof apes | typeof items, name: string, args: unknown[]) {
    const transport = http(t.chain.service.anvil.url);
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(key) });
    // biome-ignore lint/suspicious/noExplicitAny: one helper for both ABIs
    const hash = await wallet.writeContract({ address, abi, functionName: name, args } as any);
    await t.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
  }

  beforeAll(async () => {
    t = await startAlchemyDemo();
    const { nft, items: itemsContract } = t.demo;
    await send(carolKey, nft, apes, 'mint', [bob, 201n]); // airdropped to bob
    await send(bobKey, nft, apes, 'mint', [bob, 202n]); // minted by bob himself
    await send(carolKey, nft, apes, 'mint', [demoAccounts.carol, 203n]);
    await send(carolKey, nft, apes, 'transferFrom', [demoAccounts.carol, bob, 203n]); // received, not minted to bob
    await send(carolKey, itemsContract, items, 'mint', [bob, 9n, 3n]); // an ERC-1155 airdrop
    await send(bobKey, itemsContract, items, 'mint', [bob, 10n, 2n]);
    await send(carolKey, nft, apes, 'mint', [bob, 204n]); // airdropped to bob, who passes it on
    await send(bobKey, nft, apes, 'transferFrom', [bob, alice, 204n]);
    await send(carolKey, nft, apes, 'mint', [spamTarget, 205n]); // an airdrop that is not spam
    await t.chain.synced();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  it('getNFTsForOwner: excludeFilters AIRDROPS leaves out what others minted to the owner, includeFilters keeps only that', async () => {
    const { nft, items: itemsContract } = t.demo;
    const ape = (id: number) => `${lower(nft)}/${id}`;
    const item = (id: number) => `${lower(itemsContract)}/${id}`;
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
    const spamToken = `${lower(t.demo.spamNft)}/1`;
    const ape = (id: number) => `${lower(t.demo.nft)}/${id}`;
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
        [lower(nft), '1', '1', '201'],
        [lower(itemsContract), '3', '1', '9'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(airdrops.totalCount).toBe(2);
    const kept = await t.alchemy.nft.getContractsForOwner(bob, { excludeFilters: [NftFilters.AIRDROPS] });
    expect(summary(kept.contracts)).toEqual(
      [
        [lower(nft), '3', '3', '6'],
        [lower(itemsContract), '107', '3', '1'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    // Only airdrops of a collection the owner holds nothing else of: the collection is gone without them.
    const clean = await get('getContractsForOwner', `owner=${spamTarget}&excludeFilters[]=AIRDROPS`);
    expect(clean.body).toEqual({ contracts: [], totalCount: 0, pageKey: null });
  });

  it('refuses a filter named in both lists, and an unknown one, naming the parameter', async () => {
    const both = await get('getNFTsForOwner', `owner=${bob}&excludeFilters[]=AIRDROPS&includeFilters[]=AIRDROPS`);
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/^invalid parameter 'includeFilters'/);
    const unknown = await get('getContractsForOwner', `owner=${bob}&excludeFilters[]=AIRDROP`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^invalid parameter 'excludeFilters'/);
  });

  it('a reorg that drops the mint drops the airdrop: the same token minted by its holder on the new branch is not one', async () => {
    const { nft } = t.demo;
    const owned = async (filters: { includeFilters?: NftFilters[] } = {}) =>
      held((await t.alchemy.nft.getNftsForOwner(bob, { ...filters, contractAddresses: [nft] })).ownedNfts);
    const ape301 = `${lower(nft)}/301`;
    const snapshot = await t.chain.anvilRpc('evm_snapshot');
    await send(carolKey, nft, apes, 'mint', [bob, 301n]);
    await t.chain.synced();
    expect(await owned({ includeFilters: [NftFilters.AIRDROPS] })).toContain(ape301);

    await t.chain.anvilRpc('evm_revert', [snapshot]);
    await send(bobKey, nft, apes, 'mint', [bob, 301n]);
    await t.chain.synced();
    expect(await owned()).toContain(ape301);
    expect(await owned({ includeFilters: [NftFilters.AIRDROPS] })).not.toContain(ape301);
  });
});
