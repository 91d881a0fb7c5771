import { NftFilters, type OwnedNft } from 'alchemy-sdk';
import { getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts, spamTarget } from '../../src/demo/demo-plan.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { type AlchemyDemo, startAlchemyDemo } from './support/alchemy-demo.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type Body = any;

const { dev, alice } = demoAccounts;
const erc721 = parseAbi(['function transferFrom(address from, address to, uint256 id)']);
const checksummed = (address: string) => getAddress(address);

/** What getContractsForOwner must say of an owner, worked out from the tokens getNFTsForOwner lists. */
function contractsOf(owned: OwnedNft[]) {
  const byContract = new Map<string, { total: bigint; ids: bigint[]; names: Map<bigint, string | undefined> }>();
  for (const nft of owned) {
    const entry = byContract.get(nft.contract.address) ?? { total: 0n, ids: [] as bigint[], names: new Map() };
    entry.total += BigInt(nft.balance);
    entry.ids.push(BigInt(nft.tokenId));
    entry.names.set(BigInt(nft.tokenId), nft.name);
    byContract.set(nft.contract.address, entry);
  }
  return [...byContract.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([address, { total, ids, names }]) => {
      const first = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;
      return [address, total.toString(), String(ids.length), first.toString(), names.get(first)];
    });
}

/**
 * Alchemy's methods about collections under the JSON-RPC URL form (alchemy-sdk given only a URL), over
 * the real indexer and the demo's contracts: getContractsForOwner, checked against the tokens
 * getNFTsForOwner lists and the collections getContractMetadata describes; isHolderOfContract; and the
 * trait statistics (summarizeNFTAttributes, computeRarity), checked against each token's metadata.
 */
describe("Alchemy's collection methods under the JSON-RPC URL form", () => {
  let t: AlchemyDemo;

  async function get(query: string, base = t.url): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${base}/getContractsForOwner?${query}`, { signal: AbortSignal.timeout(10_000) });
    const body = await response.json();
    t.check('GET', '/v1/rpc/{chain}/{network}/{apiKey}/getContractsForOwner', response.status, body);
    return { status: response.status, body };
  }

  beforeAll(async () => {
    t = await startAlchemyDemo();
    // The spam target gets an honest ape beside the spam collection airdropped to it.
    await t.chain.wallet.writeContract({
      address: t.demo.nft,
      abi: erc721,
      functionName: 'transferFrom',
      args: [dev, spamTarget, 3n],
    });
    await t.chain.synced();
    // The metadata fetcher reads each minted token's data: URI in the background; wait for the dev account's.
    const deadline = Date.now() + 30_000;
    while (!(await t.alchemy.nft.getNftsForOwner(dev)).ownedNfts.every((nft) => nft.name !== undefined)) {
      if (Date.now() > deadline) throw new Error('demo NFT metadata not fetched within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  it('nft.getContractsForOwner: each collection the owner holds, with its balance, distinct tokens and display NFT', async () => {
    for (const owner of [dev, alice, spamTarget]) {
      const owned = (await t.alchemy.nft.getNftsForOwner(owner)).ownedNfts;
      const answer = await t.alchemy.nft.getContractsForOwner(owner);
      expect(answer.totalCount).toBe(new Set(owned.map((nft) => nft.contract.address)).size);
      expect(answer.pageKey).toBeUndefined();
      expect(
        answer.contracts.map((c) => [
          c.address,
          c.totalBalance,
          c.numDistinctTokensOwned,
          c.displayNft?.tokenId,
          c.displayNft?.name,
        ]),
        owner,
      ).toEqual(contractsOf(owned));
    }
    // Each collection as getContractMetadata describes it.
    const { body } = await get(`owner=${dev}`);
    expect(body.contracts.map((c: Body) => c.address)).toEqual([checksummed(t.demo.items), checksummed(t.demo.nft)].sort());
    for (const contract of body.contracts) {
      const described = await (await fetch(`${t.url}/getContractMetadata?contractAddress=${contract.address}`)).json();
      const { totalBalance, numDistinctTokensOwned, displayNft, image, ...rest } = contract;
      expect(rest).toEqual(described);
      expect(image.originalUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    }
    // The dev account kept apes 1 and 2 (3 went to the spam target) and items 1 (650), 2 (45), 3 (1).
    expect(body.contracts.map((c: Body) => [c.totalBalance, c.numDistinctTokensOwned])).toEqual(
      checksummed(t.demo.items) < checksummed(t.demo.nft)
        ? [
            ['696', '3'],
            ['2', '2'],
          ]
        : [
            ['2', '2'],
            ['696', '3'],
          ],
    );
  });

  it('pages by pageKey; a page key of another query is refused naming it', async () => {
    const first = await get(`owner=${dev}&pageSize=1`);
    expect(first.body.contracts).toHaveLength(1);
    expect(first.body.totalCount).toBe(2);
    expect(first.body.pageKey).toEqual(expect.any(String));
    const second = await get(`owner=${dev}&pageSize=1&pageKey=${first.body.pageKey}`);
    expect(second.body.contracts).toHaveLength(1);
    expect(second.body.pageKey).toBeNull();
    const all = await get(`owner=${dev}`);
    expect([...first.body.contracts, ...second.body.contracts]).toEqual(all.body.contracts);
    const sdkPage = await t.alchemy.nft.getContractsForOwner(dev, { pageSize: 1, pageKey: first.body.pageKey });
    expect(sdkPage.contracts.map((c) => c.address)).toEqual([second.body.contracts[0].address]);

    const other = await get(`owner=${alice}&pageSize=1&pageKey=${first.body.pageKey}`);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toMatch(/^invalid parameter 'pageKey'/);
  });

  it('the spam filters: excludeFilters SPAM leaves the spam collection out, includeFilters SPAM keeps only it', async () => {
    const all = await t.alchemy.nft.getContractsForOwner(spamTarget);
    expect(all.contracts.map((c) => [c.address, c.isSpam]).sort()).toEqual(
      [
        [checksummed(t.demo.nft), false],
        [checksummed(t.demo.spamNft), true],
      ].sort(),
    );
    const clean = await t.alchemy.nft.getContractsForOwner(spamTarget, { excludeFilters: [NftFilters.SPAM] });
    expect(clean.contracts.map((c) => c.address)).toEqual([checksummed(t.demo.nft)]);
    expect(clean.totalCount).toBe(1);
    const onlySpam = await t.alchemy.nft.getContractsForOwner(spamTarget, { includeFilters: [NftFilters.SPAM] });
    expect(onlySpam.contracts.map((c) => c.address)).toEqual([checksummed(t.demo.spamNft)]);
    // The spam collection was minted to the target by another address: an airdrop too; ape 3 was given.
    const airdrops = await get(`owner=${spamTarget}&includeFilters[]=AIRDROPS`);
    expect(airdrops.body.contracts.map((c: Body) => c.address)).toEqual([checksummed(t.demo.spamNft)]);
  });

  it('isHolderOfContract: whether the index says the wallet holds any token of the contract', async () => {
    const holds = async (wallet: string, contract: string) => {
      const response = await fetch(`${t.url}/isHolderOfContract?wallet=${wallet}&contractAddress=${contract}`);
      const body: Body = await response.json();
      t.check('GET', '/v1/rpc/{chain}/{network}/{apiKey}/isHolderOfContract', response.status, body);
      return response.status === 200 ? body.isHolderOfContract : body.error.message;
    };
    // The spam target holds ape 3 (given in beforeAll) and the spam collection, not the items.
    expect(await holds(spamTarget, t.demo.nft)).toBe(true);
    expect(await holds(spamTarget, t.demo.spamNft)).toBe(true);
    expect(await holds(spamTarget, t.demo.items)).toBe(false);
    expect(await holds(dev, t.demo.spamNft)).toBe(false);
    expect(await holds(dev, t.demo.items)).toBe(true);
    expect(await holds('0x12', t.demo.nft)).toMatch(/^invalid parameter 'wallet'/);
    expect(await holds(dev, '')).toMatch(/^invalid parameter 'contractAddress'/);
  });

  it("summarizeNFTAttributes and computeRarity: the trait counts of the collection's tokens, as their metadata has them", async () => {
    const apes = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => t.alchemy.nft.getNftMetadata(t.demo.nft, id)));
    const expected: Record<string, Record<string, number>> = {};
    for (const ape of apes) {
      for (const { trait_type, value } of ape.raw.metadata.attributes as { trait_type: string; value: unknown }[]) {
        expected[trait_type] ??= {};
        expected[trait_type]![String(value)] = (expected[trait_type]![String(value)] ?? 0) + 1;
      }
    }
    expect(Object.keys(expected).length).toBeGreaterThan(1);
    const summary = await t.alchemy.nft.summarizeNftAttributes(t.demo.nft);
    expect(summary).toEqual({ contractAddress: checksummed(t.demo.nft), totalSupply: '6', summary: expected });

    const rarity = await t.alchemy.nft.computeRarity(t.demo.nft, 2);
    const traits = apes[1]!.raw.metadata.attributes as { trait_type: string; value: unknown }[];
    expect(rarity.rarities).toEqual(
      traits.map(({ trait_type, value }) => ({
        traitType: trait_type,
        value: String(value),
        prevalence: expected[trait_type]![String(value)]! / 6,
      })),
    );
    const rare = async (query: string) => {
      const response = await fetch(`${t.url}/computeRarity?${query}`);
      const body: Body = await response.json();
      t.check('GET', '/v1/rpc/{chain}/{network}/{apiKey}/computeRarity', response.status, body);
      return { status: response.status, body };
    };
    expect((await rare(`contractAddress=${t.demo.nft}`)).body.error.message).toMatch(/^invalid parameter 'tokenId'/);
    expect((await rare(`contractAddress=${t.demo.token}&tokenId=1`)).status).toBe(404);
    const notNft = await fetch(`${t.url}/summarizeNFTAttributes?contractAddress=${t.demo.token}`);
    expect(notNft.status).toBe(404);
  });

  it('refuses bad input with 400 naming the parameter; a contracts-restricted key is refused', async () => {
    const cases: [string, RegExp][] = [
      ['', /'owner'/],
      ['owner=0x12', /'owner'/],
      [`owner=${dev}&orderBy=newest`, /'orderBy'/],
      [`owner=${dev}&pageSize=0`, /pageSize/],
      [`owner=${dev}&pageSize=101`, /pageSize/],
      [`owner=${dev}&excludeFilters[]=SCAM`, /'excludeFilters'/],
      [`owner=${dev}&excludeFilters[]=SPAM&includeFilters[]=SPAM`, /'includeFilters'/],
      [`owner=${dev}&excludeFilters[]=SPAM&spamConfidenceLevel=SURE`, /'spamConfidenceLevel'/],
      [`owner=${dev}&pageKey=%21%21`, /'pageKey'/],
    ];
    for (const [query, named] of cases) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message, query).toMatch(named);
    }
    const restricted = await t.chain.service.createKey();
    await restrictKey(t.chain.service, restricted.keyId, { contracts: [t.demo.nft] });
    const refused = await get(`owner=${dev}`, `${t.chain.service.url}/v1/rpc/ethereum/devnet/${restricted.key}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/the method 'getContractsForOwner' reads every contract/);
  });
});
