import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { createNftService } from '../../src/nfts/service.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startHttpServer, type TestHttpServer } from './support/http-server.ts';
import { createNftFixture, holders, type NftFixture } from './support/nft-fixture.ts';
import { nftTransferEvent } from './support/nft-transfer-event.ts';

const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const metadataPath = '/v1/nfts/{chain}/metadata/{contract}/{token_id}';
const refreshPath = '/v1/nfts/{chain}/metadata/{contract}/{token_id}/refresh';

describe('NFT metadata routes', () => {
  let t: TestService;
  let f: NftFixture;
  let server: TestHttpServer;
  const hits = new Map<string, number>();
  let firstDocument: Record<string, unknown> = {
    name: 'Demo #1',
    description: 'The first demo token',
    image: `ipfs://${cid}/1.png`,
    attributes: [{ trait_type: 'Color', value: 'red' }, { trait_type: 'Level', value: 3 }, { value: 'untyped' }],
  };

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const path = request.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/nft/1.json')
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(firstDocument));
      const item = /^\/items\/([0-9a-f]{64})\.json$/.exec(path);
      if (item) {
        const id = BigInt(`0x${item[1]}`);
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `Item ${id}` }));
      }
      if (path === '/page') return response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      if (path === '/huge') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(256 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 8 * 1024 * 1024) {
            sent += chunk.length;
            if (!response.write(chunk)) return response.once('drain', pump);
          }
          response.end();
        };
        return pump();
      }
      if (path === '/to-link-local') return response.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (path === '/slow') return; // never answers; the server's close destroys the socket
      response.writeHead(404).end();
    });
    t = await startTestService();
    f = await createNftFixture(t);
    const { nft, items, artifacts } = f.contracts;
    await f.send(nft, artifacts.DemoNft.abi, 'mint', [holders[0], 1n]);
    await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [1n, `${server.url}/nft/1.json`]);
    await f.send(items, artifacts.DemoItems.abi, 'setURI', [`${server.url}/items/{id}.json`]);
    await f.own(nft, 1n, holders[0], 'ERC721');
  });
  afterAll(async () => {
    await t?.stop();
    await server?.close();
  });

  const get = (contract: string, tokenId: string, query = '') =>
    f.call('GET', `/v1/nfts/ethereum/metadata/${contract}/${tokenId}${query}`, metadataPath);

  it('answers ERC-721 metadata: fields, string traits, gateway image URL and owner from the index', async () => {
    const { status, body } = await get(f.contracts.nft, '1');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      contract: f.contracts.nft.toLowerCase(),
      chain: 'ethereum',
      network: 'devnet',
      token_id: '1',
      standard: 'ERC721',
      owner: holders[0],
      name: 'Demo #1',
      description: 'The first demo token',
      image_url: `ipfs://${cid}/1.png`,
      image_gateway_url: `https://ipfs.io/ipfs/${cid}/1.png`,
      traits: [
        { trait_type: 'Color', value: 'red' },
        { trait_type: 'Level', value: '3' },
        { trait_type: '', value: 'untyped' },
      ],
      token_uri: `${server.url}/nft/1.json`,
      metadata_error: null,
    });
    expect(Date.parse(body.fetched_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('serves the cached record without fetching again, until a refresh', async () => {
    await get(f.contracts.nft, '1');
    const fetchesBefore = hits.get('/nft/1.json');
    const cached = await get(f.contracts.nft, '0x1');
    expect(cached.body.name).toBe('Demo #1');
    expect(hits.get('/nft/1.json')).toBe(fetchesBefore);

    firstDocument = { ...firstDocument, name: 'Demo #1 (revealed)' };
    expect((await get(f.contracts.nft, '1')).body.name).toBe('Demo #1');
    const refreshed = await f.call('POST', `/v1/nfts/ethereum/metadata/${f.contracts.nft}/1/refresh`, refreshPath);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.name).toBe('Demo #1 (revealed)');
    expect(hits.get('/nft/1.json')).toBe((fetchesBefore ?? 0) + 1);
    expect((await get(f.contracts.nft, '1')).body.name).toBe('Demo #1 (revealed)');
    // With a JSON body too (the /v1 scope reads every body as text).
    const withBody = await f.call('POST', `/v1/nfts/ethereum/metadata/${f.contracts.nft}/1/refresh`, refreshPath, { body: '{}' });
    expect(withBody.status).toBe(200);
  });

  it('substitutes {id} in ERC-1155 URIs; owner only when exactly one holder', async () => {
    const { items } = f.contracts;
    await f.own(items, 10n, holders[0], 'ERC1155', 5n);
    const single = await get(items, '10');
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({
      standard: 'ERC1155',
      name: 'Item 10',
      owner: holders[0],
      token_uri: `${server.url}/items/${'0'.repeat(63)}a.json`,
      metadata_error: null,
    });
    await f.own(items, 11n, holders[0], 'ERC1155', 1n);
    await f.own(items, 11n, holders[1], 'ERC1155', 2n);
    const shared = await get(items, '11');
    expect(shared.body).toMatchObject({ name: 'Item 11', owner: null });
  });

  it('records what failed in metadata_error, with a 200 and never a hang', async () => {
    const { nft, artifacts } = f.contracts;
    const cases: [bigint, string, string | RegExp][] = [
      [20n, `${server.url}/page`, 'not JSON (content-type text/html)'],
      [21n, `${server.url}/huge`, 'response larger than 1048576 bytes'],
      [22n, 'http://10.0.0.1/meta.json', 'address 10.0.0.1 is private'],
      [23n, `${server.url}/to-link-local`, 'address 169.254.169.254 is link-local'],
      [24n, 'ftp://files.example/1.json', "unsupported URI scheme 'ftp:'"],
      [25n, `${server.url}/missing`, `HTTP 404 from 127.0.0.1:${server.port}`],
      [26n, 'data:application/json,{"name":"inline"', 'not JSON'],
    ];
    for (const [id, uri] of cases) {
      await f.send(nft, artifacts.DemoNft.abi, 'mint', [holders[1], id]);
      await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [id, uri]);
    }
    for (const [id, uri, reason] of cases) {
      const { status, body } = await get(nft, String(id));
      expect(status, uri).toBe(200);
      expect(body.metadata_error, uri).toEqual(reason);
      expect(body).toMatchObject({ token_uri: uri, name: null, image_url: null, traits: [] });
    }
    // A token that does not exist: tokenURI reverts.
    const missing = await get(nft, '999');
    expect(missing.status).toBe(200);
    expect(missing.body.metadata_error).toMatch(/^tokenURI\(999\) reverted/);
    expect(missing.body.token_uri).toBeNull();
  });

  it('times out a URI that never answers (the configured 5000 ms), and keeps the failure', async () => {
    const { nft, artifacts } = f.contracts;
    await f.send(nft, artifacts.DemoNft.abi, 'mint', [holders[1], 30n]);
    await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [30n, `${server.url}/slow`]);
    const started = performance.now();
    const { status, body } = await get(nft, '30');
    expect(status).toBe(200);
    expect(body.metadata_error).toBe('timeout after 5000 ms');
    expect(performance.now() - started).toBeLessThan(9_000);
    const again = performance.now();
    expect((await get(nft, '30')).body.metadata_error).toBe('timeout after 5000 ms');
    expect(performance.now() - again).toBeLessThan(1_000);
  });

  it('reads data: URIs on chain', async () => {
    const { nft, artifacts } = f.contracts;
    const document = {
      name: 'On chain',
      image_data: '<svg xmlns="http://www.w3.org/2000/svg"/>',
      traits: [{ trait_type: 'k', value: 1 }],
    };
    await f.send(nft, artifacts.DemoNft.abi, 'mint', [holders[2], 40n]);
    await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [
      40n,
      `data:application/json;base64,${Buffer.from(JSON.stringify(document)).toString('base64')}`,
    ]);
    const { body } = await get(nft, '40');
    expect(body).toMatchObject({
      name: 'On chain',
      traits: [{ trait_type: 'k', value: '1' }],
      metadata_error: null,
      owner: null,
    });
    expect(body.image_url).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(body.image_gateway_url).toBe(body.image_url);
  });

  it('fetches a minted token in the background from the chain event stream, so the first request finds it cached', async () => {
    const { nft, artifacts } = f.contracts;
    await f.send(nft, artifacts.DemoNft.abi, 'mint', [holders[2], 50n]);
    await f.send(nft, artifacts.DemoNft.abi, 'setTokenURI', [50n, `${server.url}/items/${'0'.repeat(62)}32.json`]);
    // A second service over the same database and chain, as an indexer process would run it.
    const config = t.service.ctx.config;
    const chains = createChainRegistry(config.chains);
    const nfts = createNftService({ db: t.database.db, config, chains, logger: pino({ level: 'silent' }) });
    try {
      nfts.fetcher.listener([
        nftTransferEvent({
          contract: nft.toLowerCase(),
          standard: 'ERC721',
          from: `0x${'0'.repeat(40)}`,
          to: holders[2],
          token_id: '50',
          amount: '1',
        }),
      ]);
      await nfts.fetcher.idle();
    } finally {
      await nfts.close();
      await chains.close();
    }
    const path = `/items/${'0'.repeat(62)}32.json`;
    expect(hits.get(path)).toBe(1);
    const { body } = await get(nft, '50');
    expect(body).toMatchObject({ name: 'Item 50', metadata_error: null });
    expect(hits.get(path)).toBe(1);
  });

  it('refuses bad input with clear errors', async () => {
    const badId = await get(f.contracts.nft, 'abc');
    expect(badId.status).toBe(400);
    expect(badId.body.error.message).toMatch(/'token_id'/);
    expect((await get(f.contracts.nft, (1n << 256n).toString())).status).toBe(400);
    const badContract = await get('0x1234', '1');
    expect(badContract.status).toBe(400);
    expect(badContract.body.error.message).toMatch(/'contract'/);
    const noCode = await get(holders[2], '1');
    expect(noCode.status).toBe(404);
    expect(noCode.body.error.message).toMatch(/no contract at 0x90f79bf6eb2c4f870365e96c4a0ef2c3ef31bcf8 on ethereum\/devnet/);
    const erc20 = await get(f.contracts.token, '1');
    expect(erc20.status).toBe(404);
    expect(erc20.body.error.message).toMatch(/not an NFT contract/);
    const refreshBad = await f.call('POST', `/v1/nfts/ethereum/metadata/${f.contracts.nft}/x/refresh`, refreshPath);
    expect(refreshBad.status).toBe(400);
    const unknownChain = await f.call('GET', `/v1/nfts/bitcoin/metadata/${f.contracts.nft}/1`, metadataPath);
    expect(unknownChain.status).toBe(404);
    const noScope = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const forbidden = await f.call('GET', `/v1/nfts/ethereum/metadata/${f.contracts.nft}/1`, metadataPath, { key: noScope });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toMatch(/data:read/);
  });
});
