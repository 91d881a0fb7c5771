import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamClient, isLoopbackHost } from '../../src/chains/upstream-client.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';

const answerText = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { logs: Array.from({ length: 50 }, (_, n) => ({ n, data: `0x${'ab'.repeat(32)}`, name: 'Jeton équitable' })) },
});

/** A node on 127.0.0.1 that answers `answerText` encoded as `encode` says, given the request's headers. */
async function startNode(encode: (headers: IncomingHttpHeaders) => { coding?: string; body: Buffer }) {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      seen.push(request.headers);
      const { coding, body } = encode(request.headers);
      response.writeHead(200, { 'content-type': 'application/json', ...(coding ? { 'content-encoding': coding } : {}) });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [] });

describe('gzip from upstreams', () => {
  it('asks for gzip when told to, and reads the compressed answer as the same text', async () => {
    const node = await startNode((headers) =>
      /gzip/.test(String(headers['accept-encoding']))
        ? { coding: 'gzip', body: gzipSync(answerText) }
        : { body: Buffer.from(answerText) },
    );
    const client = createUpstreamClient({ url: node.url, gzip: true });
    closers.push(node.close, () => client.close());
    expect(await client.send(body)).toBe(answerText);
    expect(node.seen[0]!['accept-encoding']).toBe('gzip');
  });

  it('does not ask a node on a loopback address by default, and asks any other host', async () => {
    const node = await startNode(() => ({ body: Buffer.from(answerText) }));
    const client = createUpstreamClient({ url: node.url });
    closers.push(node.close, () => client.close());
    expect(await client.send(body)).toBe(answerText);
    expect(node.seen[0]!['accept-encoding']).toBeUndefined();
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]', '[::ffff:127.0.0.1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['10.0.0.1', 'eth-mainnet.g.alchemy.com', '128.0.0.1', '[2001:db8::1]', 'localhost.example']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('reads deflate and br answers a node sends unasked', async () => {
    for (const [coding, encode] of [
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
      ['GZIP', gzipSync],
    ] as const) {
      const node = await startNode(() => ({ coding, body: encode(answerText) }));
      const client = createUpstreamClient({ url: node.url, gzip: false });
      closers.push(node.close, () => client.close());
      expect(await client.send(body), coding).toBe(answerText);
    }
  });

  it('refuses a corrupt or unknown encoding as a failed connection, which another upstream may answer', async () => {
    for (const [coding, bytes] of [
      ['gzip', Buffer.from('not gzip at all')],
      ['zstd', Buffer.from(answerText)],
    ] as const) {
      const node = await startNode(() => ({ coding, body: bytes }));
      const client = createUpstreamClient({ url: node.url, gzip: true });
      closers.push(node.close, () => client.close());
      const error = await client.send(body).catch((failure: unknown) => failure);
      expect(error, coding).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).reason).toBe('connection');
    }
  });
});
