import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NftsConfig } from '../../src/config/nft-settings.ts';
import { createDocumentLoader } from '../../src/nfts/metadata/load-document.ts';
import { startHttpServer, type TestHttpServer } from './support/http-server.ts';

const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

describe('metadata document loader', () => {
  let server: TestHttpServer;
  let nfts: NftsConfig;
  const requested: string[] = [];

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      requested.push(request.url ?? '');
      const routes: Record<string, [string, string]> = {
        [`/ipfs/${cid}/1.json`]: ['application/json', '{"name":"from the gateway"}'],
        [`/ipfs/${cid}/plain`]: ['text/plain; charset=utf-8', '\uFEFF{"name":"labelled as text"}'],
        [`/ipfs/${cid}/page`]: ['text/html', '<html>hi</html>'],
        [`/ipfs/${cid}/picture`]: ['image/png', '\x89PNG'],
        [`/ipfs/${cid}/list`]: ['application/json', '[1,2]'],
        '/ar/tx123': ['application/json', '{"name":"from arweave"}'],
      };
      const found = routes[request.url ?? ''];
      if (!found) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': found[0] }).end(found[1]);
    });
    // Production mode: only the configured gateways (trusted by the operator) may be on loopback.
    nfts = {
      ipfsGateway: `${server.url}/ipfs/`,
      arweaveGateway: `${server.url}/ar/`,
      metadataTimeoutMs: 2_000,
      metadataMaxBytes: 1024,
    };
  });
  afterAll(() => server?.close());

  const loader = () => createDocumentLoader({ nfts, mode: 'production' });

  it('reads ipfs:// and ar:// documents through the configured gateways', async () => {
    expect(await loader().load(`ipfs://${cid}/1.json`)).toEqual({ ok: true, document: { name: 'from the gateway' } });
    expect(await loader().load(`https://some-public-gateway.example/ipfs/${cid}/1.json`)).toEqual({
      ok: true,
      document: { name: 'from the gateway' },
    });
    expect(await loader().load('ar://tx123')).toEqual({ ok: true, document: { name: 'from arweave' } });
    expect(requested).toContain(`/ipfs/${cid}/1.json`);
  });

  it('accepts JSON whatever text type it is labelled with', async () => {
    expect(await loader().load(`ipfs://${cid}/plain`)).toEqual({ ok: true, document: { name: 'labelled as text' } });
  });

  it('says what is wrong with a document that is not a JSON object', async () => {
    expect(await loader().load(`ipfs://${cid}/page`)).toEqual({ ok: false, reason: 'not JSON (content-type text/html)' });
    expect(await loader().load(`ipfs://${cid}/picture`)).toEqual({ ok: false, reason: 'not JSON (content-type image/png)' });
    expect(await loader().load(`ipfs://${cid}/list`)).toEqual({ ok: false, reason: 'not a JSON object' });
    expect(await loader().load('data:application/json,{"name":')).toEqual({ ok: false, reason: 'not JSON' });
  });

  it('caps inline documents too', async () => {
    const big = `data:application/json,{"name":"${'x'.repeat(2_000)}"}`;
    expect(await loader().load(big)).toEqual({ ok: false, reason: 'metadata larger than 1024 bytes' });
    expect(await loader().load('data:application/json,{"name":"small"}')).toEqual({ ok: true, document: { name: 'small' } });
  });

  it('refuses other loopback URLs in production mode', async () => {
    const other = await startHttpServer((_request, response) => response.writeHead(200).end('{}'));
    try {
      expect(await loader().load(`${other.url.replace('http:', 'https:')}/x.json`)).toEqual({
        ok: false,
        reason: 'address 127.0.0.1 is loopback',
      });
      expect(await loader().load(`${other.url}/x.json`)).toEqual({
        ok: false,
        reason: 'http URLs are refused outside development mode; use https',
      });
    } finally {
      await other.close();
    }
  });
});
