import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { startHttpServer, type TestHttpServer } from './support/http-server.ts';
import { createNftFixture, holders, type NftFixture, network } from './support/nft-fixture.ts';

const cid = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
const collectionPath = '/v1/nfts/{chain}/collection/{contract}';
const ownedPath = '/v1/nfts/{chain}/owned/{address}';

describe('NFT collection and owned routes', () => {
  let t: TestService;
  let f: NftFixture;
  let server: TestHttpServer;

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      if (request.url === '/collection.json') {
        return response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'Demo collection',
            description: 'Tokens for tests',
            image: `ipfs://${cid}/logo.png`,
            banner_image: 'https://img.example/banner.png',
          }),
        );
      }
      const nft = /^\/nft\/(\d+)$/.exec(request.url ?? '');
      if (nft) {
        return response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ name: `Demo #${nft[1]}`, image: `ipfs://${cid}/${nft[1]}.png` }));
      }
      response.writeHead(404).end();
    });
    t = await startTestService();
    f = await createNftFixture(t);
    const { nft, items, artifacts } = f.contracts;
    for (const [owner, id] of [
      [holders[0], 1n],
      [holders[0], 2n],
      [holders[1], 3n],
    ] as const) {
      await f.send(nft, artifacts.DemoNft.abi, 'mint', [owner, id]);
      await f.own(nft, id, owner, 'ERC721');
    }
    await f.send(nft, artifacts.DemoNft.abi, 'setBaseURI', [`${server.url}/nft/`]);
    await f.send(nft, artifacts.DemoNft.abi, 'setContractURI', [`${server.url}/collection.json`]);
    await f.send(items, artifacts.DemoItems.abi, 'mint', [holders[0], 7n, 5n]);
    await f.send(items, artifacts.DemoItems.abi, 'mint', [holders[2], 7n, 1n]);
    await f.send(items, artifacts.DemoItems.abi, 'mint', [holders[2], 8n, 2n]);
    await f.own(items, 7n, holders[0], 'ERC1155', 5n);
    await f.own(items, 7n, holders[2], 'ERC1155', 1n);
    await f.own(items, 8n, holders[2], 'ERC1155', 2n);
  });
  afterAll(async () => {
    await t?.stop();
    await server?.close();
  });

  it('describes an ERC-721 collection: chain reads, index counts and contractURI fields', async () => {
    const { status, body } = await f.call('GET', `/v1/nfts/ethereum/collection/${f.contracts.nft}`, collectionPath);
    expect(status).toBe(200);
    expect(body).toEqual({
      contract: f.contracts.nft.toLowerCase(),
      chain: 'ethereum',
      network: 'devnet',
      name: 'Test NFT',
      symbol: 'TNFT',
      standard: 'ERC721',
      total_supply: 3,
      num_owners: 2,
      floor_price_eth: null,
      floor_price_usd: null,
      description: 'Tokens for tests',
      image_url: `ipfs://${cid}/logo.png`,
      image_gateway_url: `https://ipfs.io/ipfs/${cid}/logo.png`,
      banner_url: 'https://img.example/banner.png',
      contract_uri: `${server.url}/collection.json`,
      metadata_error: null,
      is_spam: false,
      spam_reasons: [],
      spam_confidence: null,
    });
  });

  it('counts token ids in the index for an ERC-1155 collection without totalSupply()', async () => {
    const { status, body } = await f.call('GET', `/v1/nfts/ethereum/collection/${f.contracts.items}`, collectionPath);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      name: 'Test Items',
      symbol: 'TITEM',
      standard: 'ERC1155',
      total_supply: 2,
      num_owners: 2,
      contract_uri: null,
      description: null,
      metadata_error: null,
    });
  });

  it('refuses a collection that is not one', async () => {
    const erc20 = await f.call('GET', `/v1/nfts/ethereum/collection/${f.contracts.token}`, collectionPath);
    expect(erc20.status).toBe(404);
    const eoa = await f.call('GET', `/v1/nfts/ethereum/collection/${holders[0]}`, collectionPath);
    expect(eoa.status).toBe(404);
    expect(eoa.body.error.message).toMatch(/no contract/);
    const malformed = await f.call('GET', '/v1/nfts/ethereum/collection/0xnope', collectionPath);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/'contract'/);
  });

  it('lists owned NFTs in contract and token order, with balances, names and the indexed block', async () => {
    await t.database.db
      .insertInto('index_blocks')
      .values({
        network,
        number: 41,
        hash: `0x${'1'.repeat(64)}`,
        parent_hash: `0x${'0'.repeat(64)}`,
        timestamp: new Date(),
        gas_used: 0,
        tx_count: 0,
      })
      .execute();
    // Fetch one token's metadata first: its name shows in the list; the others are null until fetched.
    expect(
      (await f.call('GET', `/v1/nfts/ethereum/metadata/${f.contracts.nft}/2`, '/v1/nfts/{chain}/metadata/{contract}/{token_id}'))
        .status,
    ).toBe(200);
    const { status, body } = await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}`, ownedPath);
    expect(status).toBe(200);
    const [nft, items] = [f.contracts.nft.toLowerCase(), f.contracts.items.toLowerCase()];
    const expected = [
      { contract: nft, token_id: '1', standard: 'ERC721', balance: '1', collection_name: 'Test NFT' },
      { contract: nft, token_id: '2', standard: 'ERC721', balance: '1', collection_name: 'Test NFT', name: 'Demo #2' },
      { contract: items, token_id: '7', standard: 'ERC1155', balance: '5', collection_name: 'Test Items', name: null },
    ].sort((a, b) => (a.contract < b.contract ? -1 : a.contract > b.contract ? 1 : 0));
    expect(body).toMatchObject({ address: holders[0], chain: 'ethereum', page: 1, limit: 50, total: 3, block_number: 41 });
    expect(body.nfts).toMatchObject(expected);
    const two = body.nfts.find((item: { token_id: string; contract: string }) => item.contract === nft && item.token_id === '2');
    expect(two).toMatchObject({ image_url: `ipfs://${cid}/2.png`, image_gateway_url: `https://ipfs.io/ipfs/${cid}/2.png` });
  });

  it('pages through the list and fetches missing metadata in the background', async () => {
    const first = await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}?limit=2`, ownedPath);
    const second = await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}?limit=2&page=2`, ownedPath);
    expect(first.body.nfts).toHaveLength(2);
    expect(second.body.nfts).toHaveLength(1);
    expect(second.body).toMatchObject({ page: 2, limit: 2, total: 3 });
    const all = (await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}`, ownedPath)).body.nfts;
    expect([...first.body.nfts, ...second.body.nfts].map((n: { token_id: string }) => n.token_id)).toEqual(
      all.map((n: { token_id: string }) => n.token_id),
    );
    // Token 1's metadata was queued by the first listing; it arrives without a metadata request.
    const deadline = Date.now() + 10_000;
    let name: string | null = null;
    while (name === null && Date.now() < deadline) {
      const listed = (await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}`, ownedPath)).body.nfts;
      name =
        listed.find((n: { token_id: string; standard: string }) => n.token_id === '1' && n.standard === 'ERC721')?.name ?? null;
      if (name === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(name).toBe('Demo #1');
  });

  it('answers an empty list for an address without NFTs, and refuses bad input', async () => {
    const empty = await f.call('GET', '/v1/nfts/ethereum/owned/0x000000000000000000000000000000000000dead', ownedPath);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ nfts: [], total: 0, page: 1 });
    const badAddress = await f.call('GET', '/v1/nfts/ethereum/owned/0x12', ownedPath);
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.error.message).toMatch(/'address'/);
    const tooMany = await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}?limit=101`, ownedPath);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/'limit'/);
    expect((await f.call('GET', `/v1/nfts/ethereum/owned/${holders[0]}?page=0`, ownedPath)).status).toBe(400);
  });
});
