import { Alchemy, type Nft, NftFilters, type OwnedNft } from 'alchemy-sdk';
import { type Address, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, deployDemo } from '../../src/demo/deploy-demo.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';

const { dev, alice, bob } = demoAccounts;
const erc721 = parseAbi(['function ownerOf(uint256) view returns (address)', 'function totalSupply() view returns (uint256)']);
const erc1155 = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type Body = any;

/**
 * alchemy-sdk's `nft` namespace pointed at Blockyard with only a URL (`new Alchemy({ url })`): it sends
 * `GET {url}/getNFTsForOwner?...` and the like, answered from the same NFT service as /v1/nfts, over
 * the real indexer and the demo's contracts.
 */
describe("Alchemy's NFT API v3 names under the JSON-RPC URL form", () => {
  let chain: IndexedChain;
  let key: string;
  let url: string;
  let alchemy: Alchemy;
  let demo: DemoDeployment;
  let check: ReturnType<typeof createResponseChecker>;

  /** GET {url}/{method}, every answer checked against the published OpenAPI document. */
  async function v3(method: string, query: string, base = url): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${base}/${method}?${query}`, { signal: AbortSignal.timeout(10_000) });
    const body = await response.json();
    check('GET', `/v1/rpc/{chain}/{network}/{apiKey}/${method}`, response.status, body);
    return { status: response.status, body };
  }
  async function rest(path: string): Promise<Body> {
    const response = await fetch(`${chain.service.url}${path}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status, path).toBe(200);
    return response.json();
  }
  const checksummed = (address: string) => getAddress(address);
  /** Owners are listed in the index's (lower-case) address order and answered checksummed. */
  const byLowerCase = (addresses: string[]) =>
    addresses
      .map((a) => a.toLowerCase())
      .sort()
      .map(checksummed);

  beforeAll(async () => {
    chain = await startIndexedChain();
    key = (await chain.service.createKey()).key;
    url = `${chain.service.url}/v1/rpc/ethereum/devnet/${key}`;
    alchemy = new Alchemy({ url, maxRetries: 0 });
    check = createResponseChecker((await (await fetch(`${chain.service.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    demo = await deployDemo({ rpcUrl: chain.service.anvil.url, log: { info: () => undefined } });
    await chain.synced();
    // The metadata fetcher reads each minted token's data: URI in the background; wait for all of them.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const owned: Body = await rest(`/v1/nfts/ethereum/owned/${dev}`);
      if (owned.nfts.every((nft: { name: string | null }) => nft.name !== null)) break;
      if (Date.now() > deadline) throw new Error('demo NFT metadata not fetched within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(() => chain?.service.stop());

  it('nft.getNftsForOwner: the tokens, balances and metadata /v1/nfts/owned gives, and the chain has', async () => {
    const answer = await alchemy.nft.getNftsForOwner(dev);
    const owned: Body = await rest(`/v1/nfts/ethereum/owned/${dev}`);
    expect(answer.totalCount).toBe(owned.total);
    expect(answer.pageKey).toBeUndefined();
    expect(answer.validAt.blockNumber).toBe(owned.block_number);
    expect(answer.validAt.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answer.ownedNfts.map((nft) => [nft.contract.address, nft.tokenId, nft.balance, nft.name, nft.tokenType])).toEqual(
      owned.nfts.map((nft: Body) => [checksummed(nft.contract), nft.token_id, nft.balance, nft.name, nft.standard]),
    );
    // The dev account keeps apes 1-3 and items 1 (650), 2 (45) and 3 (1): as the chain says.
    const apes = answer.ownedNfts.filter((nft) => nft.contract.address === checksummed(demo.nft));
    expect(apes.map((nft) => nft.tokenId)).toEqual(['1', '2', '3']);
    for (const ape of apes) {
      const holder = await chain.publicClient.readContract({
        address: demo.nft,
        abi: erc721,
        functionName: 'ownerOf',
        args: [BigInt(ape.tokenId)],
      });
      expect(holder).toBe(dev);
    }
    const items = answer.ownedNfts.filter((nft) => nft.contract.address === checksummed(demo.items));
    for (const item of items) {
      const balance = await chain.publicClient.readContract({
        address: demo.items,
        abi: erc1155,
        functionName: 'balanceOf',
        args: [dev, BigInt(item.tokenId)],
      });
      expect(item.balance).toBe(balance.toString());
    }
    expect(items.map((item) => [item.tokenId, item.balance])).toEqual([
      ['1', '650'],
      ['2', '45'],
      ['3', '1'],
    ]);
    const ape1 = apes[0] as OwnedNft;
    expect(ape1).toMatchObject({
      tokenType: 'ERC721',
      name: 'Blockyard Demo Ape #1',
      contract: { name: 'Blockyard Demo Apes', symbol: 'BDAPE', totalSupply: '6', tokenType: 'ERC721', spamClassifications: [] },
    });
    expect(ape1.image.originalUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(ape1.raw.tokenUri).toMatch(/^data:application\/json/);
    expect(ape1.raw.metadata.name).toBe('Blockyard Demo Ape #1');
    expect(Array.isArray(ape1.raw.metadata.attributes)).toBe(true);
    expect(ape1.timeLastUpdated).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('nft.getNftsForOwner pages by pageKey; the iterator, omitMetadata and contractAddresses work', async () => {
    const all = (await alchemy.nft.getNftsForOwner(dev)).ownedNfts.map((nft) => `${nft.contract.address}/${nft.tokenId}`);
    const paged: string[] = [];
    let pageKey: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await alchemy.nft.getNftsForOwner(dev, { pageSize: 4, pageKey });
      expect(answer.ownedNfts.length).toBeLessThanOrEqual(4);
      paged.push(...answer.ownedNfts.map((nft) => `${nft.contract.address}/${nft.tokenId}`));
      pageKey = answer.pageKey;
      if (pageKey === undefined) break;
    }
    expect(paged).toEqual(all);
    const iterated: string[] = [];
    for await (const nft of alchemy.nft.getNftsForOwnerIterator(dev)) iterated.push(`${nft.contract.address}/${nft.tokenId}`);
    expect(iterated).toEqual(all);

    const bare = await alchemy.nft.getNftsForOwner(alice, { omitMetadata: true });
    expect(bare.ownedNfts).toEqual(
      [
        ...[
          { contractAddress: checksummed(demo.nft), tokenId: '4', balance: '1' },
          { contractAddress: checksummed(demo.nft), tokenId: '5', balance: '1' },
        ],
        { contractAddress: checksummed(demo.items), tokenId: '1', balance: '250' },
      ].sort((a, b) => (a.contractAddress < b.contractAddress ? -1 : 1)),
    );
    // The dev account minted its tokens itself and holds no spam: excluding both keeps all, asking for spam finds none.
    const excluded = await alchemy.nft.getNftsForOwner(dev, { excludeFilters: [NftFilters.SPAM, NftFilters.AIRDROPS] });
    expect(excluded.ownedNfts.map((nft) => `${nft.contract.address}/${nft.tokenId}`)).toEqual(all);
    expect(await alchemy.nft.getNftsForOwner(dev, { includeFilters: [NftFilters.SPAM] })).toMatchObject({
      ownedNfts: [],
      totalCount: 0,
    });
    const onlyItems = await alchemy.nft.getNftsForOwner(bob, { contractAddresses: [demo.items] });
    expect(onlyItems.totalCount).toBe(2);
    expect(onlyItems.ownedNfts.map((nft) => [nft.tokenId, nft.balance])).toEqual([
      ['1', '100'],
      ['2', '5'],
    ]);
  });

  it('nft.getNftMetadata: the record /v1/nfts/metadata gives, for ERC-721 and ERC-1155', async () => {
    for (const [contract, tokenId] of [
      [demo.nft, '6'],
      [demo.items, '2'],
    ] as const) {
      const nft: Nft = await alchemy.nft.getNftMetadata(contract, tokenId);
      const record: Body = await rest(`/v1/nfts/ethereum/metadata/${contract}/${tokenId}`);
      expect(nft).toMatchObject({
        tokenId,
        tokenType: record.standard,
        name: record.name,
        description: record.description,
        image: { originalUrl: record.image_url, cachedUrl: record.image_gateway_url },
        raw: { tokenUri: record.token_uri },
        timeLastUpdated: record.fetched_at,
        contract: { address: checksummed(contract), tokenType: record.standard },
      });
      expect(nft.raw.metadata.attributes).toEqual(record.traits);
    }
    // refreshCache fetches the token again (alchemy-sdk's refreshNftMetadata compares the two times).
    const cached = await alchemy.nft.getNftMetadata(demo.nft, 6);
    const refreshed = await alchemy.nft.getNftMetadata(demo.nft, 6, { refreshCache: true });
    expect(refreshed.name).toBe('Blockyard Demo Ape #6');
    expect(Date.parse(refreshed.timeLastUpdated!)).toBeGreaterThan(Date.parse(cached.timeLastUpdated!));
    expect((await alchemy.nft.getNftMetadata(demo.nft, 6)).timeLastUpdated).toBe(refreshed.timeLastUpdated);
    expect(await alchemy.nft.refreshNftMetadata(demo.nft, 6)).toBe(true);
  });

  it('nft.getContractMetadata: the collection /v1/nfts/collection gives', async () => {
    for (const contract of [demo.nft, demo.items]) {
      const answer = await alchemy.nft.getContractMetadata(contract);
      const collection: Body = await rest(`/v1/nfts/ethereum/collection/${contract}`);
      expect(answer).toMatchObject({
        address: checksummed(contract),
        name: collection.name,
        symbol: collection.symbol,
        totalSupply: String(collection.total_supply),
        tokenType: collection.standard,
        openSeaMetadata: { collectionName: collection.name, description: collection.description ?? undefined },
      });
    }
    const supply = await chain.publicClient.readContract({ address: demo.nft, abi: erc721, functionName: 'totalSupply' });
    expect((await alchemy.nft.getContractMetadata(demo.nft)).totalSupply).toBe(supply.toString());
  });

  it('nft.getNftsForContract, getOwnersForNft and getOwnersForContract: the index, as the chain has it', async () => {
    const apes = await alchemy.nft.getNftsForContract(demo.nft);
    expect(apes.nfts.map((nft) => nft.tokenId)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(apes.nfts[5]!.name).toBe('Blockyard Demo Ape #6');
    expect(apes.pageKey).toBeUndefined();
    const first = await alchemy.nft.getNftsForContract(demo.nft, { pageSize: 4, omitMetadata: true });
    expect(first.nfts).toEqual(['1', '2', '3', '4'].map((tokenId) => ({ contractAddress: demo.nft, tokenId })));
    expect(first.pageKey).toBe('0x5');
    const second = await alchemy.nft.getNftsForContract(demo.nft, { pageSize: 4, pageKey: first.pageKey });
    expect(second.nfts.map((nft) => nft.tokenId)).toEqual(['5', '6']);
    const iterated: string[] = [];
    for await (const nft of alchemy.nft.getNftsForContractIterator(demo.items)) iterated.push(nft.tokenId);
    expect(iterated).toEqual(['1', '2', '3']);

    expect(await alchemy.nft.getOwnersForNft(demo.nft, 4)).toEqual({ owners: [checksummed(alice)], pageKey: null });
    const coinOwners = await alchemy.nft.getOwnersForNft(demo.items, 1);
    expect(coinOwners.owners).toEqual(byLowerCase([alice, bob, dev]));
    const pagedOwners = await v3('getOwnersForNFT', `contractAddress=${demo.items}&tokenId=1&pageSize=2`);
    expect(pagedOwners.body.owners).toEqual(coinOwners.owners.slice(0, 2));
    const rest2 = await v3(
      'getOwnersForNFT',
      `contractAddress=${demo.items}&tokenId=1&pageSize=2&pageKey=${pagedOwners.body.pageKey}`,
    );
    expect(rest2.body).toEqual({ owners: coinOwners.owners.slice(2), pageKey: null });

    const holders = await alchemy.nft.getOwnersForContract(demo.items, { withTokenBalances: true });
    expect(holders.pageKey).toBeUndefined();
    for (const holder of holders.owners) {
      for (const { tokenId, balance } of holder.tokenBalances) {
        const onChain = await chain.publicClient.readContract({
          address: demo.items,
          abi: erc1155,
          functionName: 'balanceOf',
          args: [holder.ownerAddress as Address, BigInt(tokenId)],
        });
        expect(balance).toBe(onChain.toString());
      }
    }
    expect(holders.owners.map((holder) => holder.ownerAddress)).toEqual(byLowerCase([alice, bob, dev]));
    const apeOwners = await alchemy.nft.getOwnersForContract(demo.nft);
    expect(apeOwners.owners).toEqual(byLowerCase([alice, bob, dev]));
    // alchemy-sdk 3.6.5 drops totalCount from its answer: asked directly.
    const counted = await v3('getOwnersForContract', `contractAddress=${demo.nft}&includeCount=true`);
    expect(counted.body).toEqual({ owners: apeOwners.owners, pageKey: null, totalCount: 3 });

    // The holders' JSON is encoded by Postgres (src/nfts/holders-json.ts): pages follow their key alike.
    const whole = (await v3('getOwnersForContract', `contractAddress=${demo.items}&withTokenBalances=true`)).body;
    expect(whole.owners.map((holder: { ownerAddress: string }) => holder.ownerAddress)).toEqual(byLowerCase([alice, bob, dev]));
    const firstTwo = await v3('getOwnersForContract', `contractAddress=${demo.items}&withTokenBalances=true&pageSize=2`);
    expect(firstTwo.body.owners).toEqual(whole.owners.slice(0, 2));
    const lastOne = await v3(
      'getOwnersForContract',
      `contractAddress=${demo.items}&withTokenBalances=true&pageSize=2&pageKey=${firstTwo.body.pageKey}`,
    );
    expect(lastOne.body).toEqual({ owners: whole.owners.slice(2), pageKey: null });
    const plainFirst = await v3('getOwnersForContract', `contractAddress=${demo.nft}&pageSize=1&includeCount=true`);
    expect(plainFirst.body).toEqual({ owners: apeOwners.owners.slice(0, 1), pageKey: expect.any(String), totalCount: 3 });
    const foreign = await v3('getOwnersForContract', `contractAddress=${demo.items}&pageKey=${plainFirst.body.pageKey}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/'pageKey'/);
    expect((await v3('getOwnersForContract', `contractAddress=${demo.token}`)).status).toBe(404);
  });

  it('refuses bad input with 400 naming the parameter; alchemy-sdk surfaces it', async () => {
    const missing = await v3('getNFTsForOwner', 'pageSize=2');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(missing.body.error.message).toMatch(/'owner'/);
    await expect(alchemy.nft.getNftMetadata('0x1234', 1)).rejects.toThrow(/400.*contractAddress/);
    expect((await v3('getNFTMetadata', `contractAddress=${demo.nft}&tokenId=-1`)).body.error.message).toMatch(/'tokenId'/);
    const tooLarge = await v3('getNFTsForOwner', `owner=${dev}&pageSize=101`);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.message).toMatch(/pageSize/);
    expect((await v3('getNFTsForOwner', `owner=${dev}&withMetadata=maybe`)).body.error.message).toMatch(/withMetadata/);
    const foreignKey = (await v3('getNFTsForOwner', `owner=${dev}&pageSize=1`)).body.pageKey;
    const otherQuery = await v3('getNFTsForOwner', `owner=${alice}&pageKey=${foreignKey}`);
    expect(otherQuery.status).toBe(400);
    expect(otherQuery.body.error.message).toMatch(/'pageKey'.*another query/);
    expect((await v3('getNFTsForOwner', `owner=${dev}&pageKey=garbage!`)).body.error.message).toMatch(/'pageKey'/);
    expect((await v3('getNFTsForOwner', `owner=${dev}&orderBy=transfertime`)).body.error.message).toMatch(/'orderBy'/);
    const tooMany = Array.from({ length: 46 }, (_, i) => `contractAddresses[]=0x${i.toString(16).padStart(40, '0')}`).join('&');
    expect((await v3('getNFTsForOwner', `owner=${dev}&${tooMany}`)).body.error.message).toMatch(/'contractAddresses'/);
    const token = await v3('getContractMetadata', `contractAddress=${demo.token}`);
    expect(token.status).toBe(404);
  });

  it('authenticates by the key in the path and needs data:read', async () => {
    const malformed = await v3(
      'getContractMetadata',
      `contractAddress=${demo.nft}`,
      `${chain.service.url}/v1/rpc/ethereum/devnet/not-a-key`,
    );
    expect(malformed.status).toBe(401);
    const rpcOnly = (await chain.service.createKey({ scopes: ['rpc:read'] })).key;
    const refused = await v3(
      'getContractMetadata',
      `contractAddress=${demo.nft}`,
      `${chain.service.url}/v1/rpc/ethereum/devnet/${rpcOnly}`,
    );
    expect(refused.status).toBe(403);
    await expect(
      new Alchemy({ url: `${chain.service.url}/v1/rpc/ethereum/devnet/${rpcOnly}`, maxRetries: 0 }).nft.getContractMetadata(
        demo.nft,
      ),
    ).rejects.toThrow(/403/);
  });
});
