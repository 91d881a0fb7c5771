import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployerAccount } from '../support/contracts.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startHttpServer, type TestHttpServer } from './support/http-server.ts';
import { createNftFixture, holders, type NftFixture } from './support/nft-fixture.ts';

const ownedPath = '/v1/nfts/{chain}/owned/{address}';
const deployer = deployerAccount.address.toLowerCase();

/** The NFT APIs over the real indexer: ownership from indexed transfers, mints reaching the metadata fetcher as chain events. */
describe('NFT APIs on the real index', () => {
  let base: TestService;
  let t: TestService;
  let f: NftFixture;
  let server: TestHttpServer;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const path = request.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const image = `https://img.example${path}.png`;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `doc ${path}`, image }));
    });
    base = await startTestService();
    // The same anvil and database, with the devnet indexed.
    t = await startTestService({
      sharing: base,
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          dev_methods: true,
          block_time_s: 1,
          indexer: { enabled: true, start_block: 0 },
          upstreams: [{ url: base.anvil.url }],
        },
      ],
    });
    f = await createNftFixture(t);
  });
  afterAll(async () => {
    await t?.stop();
    await base?.stop();
    await server?.close();
  });

  async function indexed(): Promise<void> {
    const indexer = t.service.indexers[0];
    if (!indexer) throw new Error('no indexer runs');
    await indexer.waitFor(undefined, 15_000);
  }

  it('lists what the chain says each address owns, and fetches minted tokens from the event stream', async () => {
    const { nft, items, artifacts, publicClient } = f.contracts;
    // The service's metadata fetcher listens to its chain event stream (start-service wires it).

    await f.send(nft, artifacts.DemoNft.abi, 'setBaseURI', [`${server.url}/nft/`]);
    await f.send(items, artifacts.DemoItems.abi, 'setURI', [`${server.url}/items/{id}`]);
    for (const id of [1n, 2n, 3n]) await f.send(nft, artifacts.DemoNft.abi, 'mint', [deployer, id]);
    await f.send(nft, artifacts.DemoNft.abi, 'transferFrom', [deployer, holders[0], 2n]);
    await f.send(nft, artifacts.DemoNft.abi, 'burn', [3n]);
    await f.send(items, artifacts.DemoItems.abi, 'mint', [deployer, 7n, 5n]);
    await f.send(items, artifacts.DemoItems.abi, 'safeTransferFrom', [deployer, holders[0], 7n, 2n, '0x']);
    await indexed();
    // Events are pushed after their transaction commits: wait (bounded) for the three mints' fetches.
    const mintedPaths = ['/nft/1', '/nft/2', `/items/${'0'.repeat(63)}7`];
    for (const deadline = Date.now() + 10_000; !mintedPaths.every((path) => hits.has(path)) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(mintedPaths.filter((path) => !hits.has(path))).toEqual([]);
    // ...and stored, so the requests below read the cache.
    for (let deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const stored = await t.database.db.selectFrom('nft_metadata').select('token_id').execute();
      if (stored.length >= mintedPaths.length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const [nftAddress, itemsAddress] = [nft.toLowerCase(), items.toLowerCase()];
    const expected: Record<string, { contract: string; token_id: string; balance: string }[]> = {};
    for (const owner of [deployer, holders[0]]) {
      const rows: { contract: string; token_id: string; balance: string }[] = [];
      for (const id of [1n, 2n, 3n]) {
        const holder = await publicClient
          .readContract({ address: nft, abi: artifacts.DemoNft.abi, functionName: 'ownerOf', args: [id] })
          .catch(() => null);
        if (typeof holder === 'string' && holder.toLowerCase() === owner)
          rows.push({ contract: nftAddress, token_id: String(id), balance: '1' });
      }
      const units = (await publicClient.readContract({
        address: items,
        abi: artifacts.DemoItems.abi,
        functionName: 'balanceOf',
        args: [owner as Address, 7n],
      })) as bigint;
      if (units > 0n) rows.push({ contract: itemsAddress, token_id: '7', balance: String(units) });
      expected[owner] = rows.sort((a, b) =>
        a.contract === b.contract ? Number(a.token_id) - Number(b.token_id) : a.contract < b.contract ? -1 : 1,
      );
    }
    for (const owner of [deployer, holders[0]]) {
      const { status, body } = await f.call('GET', `/v1/nfts/ethereum/owned/${owner}`, ownedPath);
      expect(status).toBe(200);
      // cacheTime 0: viem otherwise answers from its own cache of the block number (seconds old).
      expect(body.block_number).toBe(Number(await publicClient.getBlockNumber({ cacheTime: 0 })));
      expect(
        body.nfts.map(({ contract, token_id, balance }: Record<string, string>) => ({ contract, token_id, balance })),
      ).toEqual(expected[owner]);
    }
    // Every mint was fetched once in the background, before any request asked for it.
    expect(hits.get('/nft/1')).toBe(1);
    expect(hits.get('/nft/2')).toBe(1);
    expect(hits.get(`/items/${'0'.repeat(63)}7`)).toBe(1);
    const two = await f.call('GET', `/v1/nfts/ethereum/metadata/${nft}/2`, '/v1/nfts/{chain}/metadata/{contract}/{token_id}');
    expect(two.body).toMatchObject({ name: 'doc /nft/2', owner: holders[0] });
    expect(hits.get('/nft/2')).toBe(1);
    const shared = await f.call(
      'GET',
      `/v1/nfts/ethereum/metadata/${items}/7`,
      '/v1/nfts/{chain}/metadata/{contract}/{token_id}',
    );
    expect(shared.body.owner).toBeNull();
  });

  it('fetches a token again when its contract announces new metadata (EIP-4906), without a refresh call', async () => {
    const { nft, artifacts } = f.contracts;
    const metadataPath = '/v1/nfts/{chain}/metadata/{contract}/{token_id}';
    const nameOf = async (id: bigint) => (await f.call('GET', `/v1/nfts/ethereum/metadata/${nft}/${id}`, metadataPath)).body.name;
    const eventually = async (what: string, check: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        if (await check()) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`not within 10 s: ${what}`);
    };
    await f.send(nft, artifacts.DemoNft.abi, 'setBaseURI', [`${server.url}/first/`]);
    for (const id of [20n, 21n]) await f.send(nft, artifacts.DemoNft.abi, 'mint', [deployer, id]);
    await indexed();
    await eventually('the mints fetched', async () => hits.has('/first/20') && hits.has('/first/21'));
    await eventually('the mints stored', async () => (await nameOf(21n)) === 'doc /first/21');

    // MetadataUpdate(20): token 20 alone is fetched again.
    await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [20n, `${server.url}/own/20`]);
    await indexed();
    await eventually('token 20 fetched again', async () => (await nameOf(20n)) === 'doc /own/20');
    expect(hits.get('/own/20')).toBe(1);
    expect(hits.get('/first/21')).toBe(1);

    // BatchMetadataUpdate(0, 2^256 - 1): every stored token of the contract is fetched again.
    await f.send(nft, artifacts.DemoNft.abi, 'setBaseURI', [`${server.url}/second/`]);
    await indexed();
    await eventually('token 21 fetched again', async () => (await nameOf(21n)) === 'doc /second/21');
    await eventually('token 20 fetched again from its own URI', async () => hits.get('/own/20') === 2);
    expect(hits.get('/first/21')).toBe(1);
  });

  it("reads a collection's contract-level metadata again when the contract announces a new one (ERC-7572)", async () => {
    const { nft, artifacts } = f.contracts;
    const contractUriOf = async () =>
      (await f.call('GET', `/v1/nfts/ethereum/collection/${nft}`, '/v1/nfts/{chain}/collection/{contract}')).body.contract_uri;
    // Lists keep what the chain says of a collection for 30 s; the announcement clears that too.
    const listedImageOf = async () => {
      const { body } = await f.call(
        'GET',
        `/v1/rpc/ethereum/devnet/${f.key}/getContractsForOwner?owner=${deployer}`,
        '/v1/rpc/{chain}/{network}/{apiKey}/getContractsForOwner',
      );
      return body.contracts.find((c: { address: string }) => c.address.toLowerCase() === nft.toLowerCase())?.openSeaMetadata
        .imageUrl;
    };
    await f.send(nft, artifacts.DemoNft.abi, 'setContractURI', [`${server.url}/contract/a`]);
    await indexed();
    expect(await contractUriOf()).toBe(`${server.url}/contract/a`);
    expect(await listedImageOf()).toBe('https://img.example/contract/a.png');
    // Kept in memory for minutes, unless ContractURIUpdated() says it changed.
    await f.send(nft, artifacts.DemoNft.abi, 'setContractURI', [`${server.url}/contract/b`]);
    await indexed();
    const deadline = Date.now() + 10_000;
    while ((await contractUriOf()) !== `${server.url}/contract/b` && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await contractUriOf()).toBe(`${server.url}/contract/b`);
    expect(await listedImageOf()).toBe('https://img.example/contract/b.png');
  });
});
