import { describe, expect, it } from 'vitest';
import { ipfsPath, isCid } from '../../src/nfts/metadata/cid.ts';
import { decodeDataUri } from '../../src/nfts/metadata/data-uri.ts';
import { imageGatewayUrl, resolveMetadataUri } from '../../src/nfts/metadata/resolve-uri.ts';
import { substituteTokenId } from '../../src/nfts/metadata/token-uri.ts';

const v0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const v1 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
const gateways = { ipfsGateway: 'https://gw.example/ipfs/', arweaveGateway: 'https://ar.example/' };
const production = { gateways, mode: 'production' } as const;
const development = { gateways, mode: 'development' } as const;

describe('substituteTokenId (EIP-1155 {id})', () => {
  it('puts the id as 64 lower-case hex digits without 0x, every time it occurs', () => {
    expect(substituteTokenId('https://x.example/{id}.json', 0xabn)).toBe(`https://x.example/${'0'.repeat(62)}ab.json`);
    expect(substituteTokenId('ipfs://c/{id}/{id}', 1n)).toBe(`ipfs://c/${'0'.repeat(63)}1/${'0'.repeat(63)}1`);
    expect(substituteTokenId('https://x.example/{id}', (1n << 256n) - 1n)).toBe(`https://x.example/${'f'.repeat(64)}`);
  });

  it('leaves a URI without {id} alone', () => {
    expect(substituteTokenId('https://x.example/7.json', 7n)).toBe('https://x.example/7.json');
  });
});

describe('CIDs', () => {
  it('recognises v0 and v1 content ids', () => {
    expect(isCid(v0)).toBe(true);
    expect(isCid(v1)).toBe(true);
    expect(isCid('bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku')).toBe(true);
    expect(isCid('Qm123')).toBe(false);
    expect(isCid(`${v0}x`)).toBe(false);
    expect(isCid('hello')).toBe(false);
  });

  it.each([
    [`ipfs://${v0}`, v0],
    [`ipfs://${v0}/1.json`, `${v0}/1.json`],
    [`ipfs://ipfs/${v1}/a/b.json`, `${v1}/a/b.json`],
    [`ipfs:///ipfs/${v1}`, v1],
    [v0, v0],
    [`${v1}/7`, `${v1}/7`],
    [`/ipfs/${v0}/7`, `${v0}/7`],
    [`https://gateway.pinata.cloud/ipfs/${v0}/7.json`, `${v0}/7.json`],
    [`http://127.0.0.1:8080/ipfs/${v1}/x?y=1`, `${v1}/x?y=1`],
    [`https://${v1}.ipfs.dweb.link/meta/1.json`, `${v1}/meta/1.json`],
  ])('%s is the IPFS path %s', (ref, path) => {
    expect(ipfsPath(ref)).toBe(path);
  });

  it('finds no IPFS path in other URLs', () => {
    expect(ipfsPath('https://example.com/ipfs/not-a-cid/1')).toBeUndefined();
    expect(ipfsPath('https://example.com/1.json')).toBeUndefined();
    expect(ipfsPath('ar://abc')).toBeUndefined();
  });
});

describe('decodeDataUri', () => {
  it('decodes base64 JSON', () => {
    const json = '{"name":"Ünïcode #1"}';
    expect(decodeDataUri(`data:application/json;base64,${Buffer.from(json).toString('base64')}`)).toEqual({
      ok: true,
      mediaType: 'application/json',
      text: json,
    });
  });

  it('decodes plain and percent-encoded JSON, with or without a charset', () => {
    expect(decodeDataUri('data:application/json,{"name":"a"}')).toMatchObject({ ok: true, text: '{"name":"a"}' });
    expect(decodeDataUri(`data:application/json;utf8,${encodeURIComponent('{"name":"a b"}')}`)).toMatchObject({
      ok: true,
      text: '{"name":"a b"}',
    });
    expect(decodeDataUri('data:application/json;charset=utf-8,{"d":"100%"}')).toMatchObject({ ok: true, text: '{"d":"100%"}' });
    expect(decodeDataUri('data:,hello')).toEqual({ ok: true, mediaType: 'text/plain', text: 'hello' });
  });

  it('refuses malformed data: URIs', () => {
    expect(decodeDataUri('data:application/json;base64')).toEqual({ ok: false, reason: 'malformed data: URI (no comma)' });
    expect(decodeDataUri('data:application/json;base64,%%%')).toEqual({
      ok: false,
      reason: 'malformed data: URI (invalid base64)',
    });
  });
});

describe('resolveMetadataUri', () => {
  it('sends every IPFS form through the configured gateway', () => {
    for (const uri of [`ipfs://${v0}/1.json`, `ipfs://ipfs/${v0}/1.json`, `${v0}/1.json`, `https://ipfs.io/ipfs/${v0}/1.json`]) {
      expect(resolveMetadataUri(uri, production)).toEqual({ kind: 'fetch', url: `https://gw.example/ipfs/${v0}/1.json` });
    }
    expect(resolveMetadataUri(v1, production)).toEqual({ kind: 'fetch', url: `https://gw.example/ipfs/${v1}` });
  });

  it('sends ar:// through the Arweave gateway', () => {
    const id = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';
    expect(resolveMetadataUri(`ar://${id}/1.json`, production)).toEqual({
      kind: 'fetch',
      url: `https://ar.example/${id}/1.json`,
    });
    expect(resolveMetadataUri('ar://', production)).toEqual({ kind: 'refused', reason: 'Arweave URI without a transaction id' });
  });

  it('reads data: URIs and raw JSON inline', () => {
    const base64 = Buffer.from('{"name":"x"}').toString('base64');
    expect(resolveMetadataUri(`data:application/json;base64,${base64}`, production)).toEqual({
      kind: 'inline',
      text: '{"name":"x"}',
    });
    expect(resolveMetadataUri('data:application/json,{"name":"y"}', production)).toEqual({
      kind: 'inline',
      text: '{"name":"y"}',
    });
    expect(resolveMetadataUri(' {"name":"z"} ', production)).toEqual({ kind: 'inline', text: '{"name":"z"}' });
  });

  it('fetches https always, http only in development mode', () => {
    expect(resolveMetadataUri('https://api.example/1', production)).toEqual({ kind: 'fetch', url: 'https://api.example/1' });
    expect(resolveMetadataUri('http://api.example/1', development)).toEqual({ kind: 'fetch', url: 'http://api.example/1' });
    expect(resolveMetadataUri('http://api.example/1', production)).toEqual({
      kind: 'refused',
      reason: 'http URLs are refused outside development mode; use https',
    });
  });

  it('refuses what it cannot fetch, saying why', () => {
    expect(resolveMetadataUri('', production)).toEqual({ kind: 'refused', reason: 'token URI is empty' });
    expect(resolveMetadataUri('ftp://files.example/1', production)).toEqual({
      kind: 'refused',
      reason: "unsupported URI scheme 'ftp:'",
    });
    expect(resolveMetadataUri('file:///etc/passwd', development)).toEqual({
      kind: 'refused',
      reason: "unsupported URI scheme 'file:'",
    });
    expect(resolveMetadataUri('ipfs://', production)).toEqual({ kind: 'refused', reason: 'IPFS URI without a content id' });
    expect(resolveMetadataUri('just words', production)).toMatchObject({ kind: 'refused' });
  });
});

describe('imageGatewayUrl', () => {
  it('gives IPFS and Arweave images through the gateways, and other URLs unchanged', () => {
    expect(imageGatewayUrl(`ipfs://${v0}/a.png`, gateways)).toBe(`https://gw.example/ipfs/${v0}/a.png`);
    expect(imageGatewayUrl(`https://cloudflare-ipfs.com/ipfs/${v1}`, gateways)).toBe(`https://gw.example/ipfs/${v1}`);
    expect(imageGatewayUrl('ar://abc/x.png', gateways)).toBe('https://ar.example/abc/x.png');
    expect(imageGatewayUrl('https://img.example/a.png', gateways)).toBe('https://img.example/a.png');
    expect(imageGatewayUrl('data:image/svg+xml;base64,PHN2Zz4=', gateways)).toBe('data:image/svg+xml;base64,PHN2Zz4=');
    expect(imageGatewayUrl('javascript:alert(1)', gateways)).toBeNull();
    expect(imageGatewayUrl(null, gateways)).toBeNull();
  });
});
