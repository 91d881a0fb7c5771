import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hasEncodedBody } from '../../src/http/encoded-body.ts';
import { rawRequest } from '../support/raw-request.ts';
import type { TestService } from '../support/service.ts';
import { useTestServiceWithKey } from '../support/service-setups.ts';

describe('compressed request bodies', () => {
  let t: TestService;
  let key: string;
  useTestServiceWithKey((started) => {
    ({ t, key } = started);
  });
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

  it('are refused with 415 naming the header, on JSON-RPC (key in a header or in the path) and REST routes', async () => {
    const { url } = t;
    for (const [path, headers] of [
      ['/v1/rpc/ethereum/devnet', { 'x-api-key': key }],
      [`/v1/rpc/ethereum/devnet/${key}`, {}],
      ['/v1/webhooks', { 'x-api-key': key }],
    ] as const) {
      const answer = await rawRequest(url, 'POST', path, {
        headers: { ...headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(call),
      });
      expect(answer.status, path).toBe(415);
      expect(answer.json().error).toMatchObject({ code: 'unsupported_media_type', status: 415 });
      expect(answer.json().error.message).toMatch(/'content-encoding'.*'gzip' is not supported/);
    }
  });

  it('take `identity` and an empty encoding as no encoding', async () => {
    const { url } = t;
    for (const encoding of ['identity', 'Identity', '']) {
      const answer = await rawRequest(url, 'POST', `/v1/rpc/ethereum/devnet/${key}`, {
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: call,
      });
      expect(answer.status, encoding).toBe(200);
      expect(answer.json().result).toBe('0x7a69');
    }
  });

  it('counts only a request that has a body', () => {
    expect(hasEncodedBody({ 'content-encoding': 'gzip' })).toBe(false);
    expect(hasEncodedBody({ 'content-encoding': 'gzip', 'content-length': '0' })).toBe(false);
    expect(hasEncodedBody({ 'content-encoding': 'gzip', 'content-length': '12' })).toBe(true);
    expect(hasEncodedBody({ 'content-encoding': 'br', 'transfer-encoding': 'chunked' })).toBe(true);
  });
});
