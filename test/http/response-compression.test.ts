import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastRoute } from '../../src/http/fast-route.ts';
import { acceptedCoding, varyOnEncoding } from '../../src/http/response-compression.ts';
import { buildServer } from '../../src/http/server.ts';
import { createMetrics } from '../../src/observability/metrics.ts';

const big = { logs: Array.from({ length: 200 }, (_, n) => ({ index: n, data: `0x${'ab'.repeat(32)}` })) };
const bigText = JSON.stringify(big);

/** POST /fast/{big|small}: the answer of a fast route. */
const fastRoute: FastRoute = {
  method: 'POST',
  url: '/fast/:size',
  match: (url) => /^\/fast\/(big|small)$/.exec(url)?.slice(1),
  async handle(exchange) {
    return exchange.params[0] === 'big' ? bigText : '{"small":true}';
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request whose answer is read as the bytes sent (no decompression on the way). */
function send(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

const decoded = (answer: Answer) => {
  const coding = answer.headers['content-encoding'];
  const bytes = coding === 'gzip' ? gunzipSync(answer.body) : coding === 'br' ? brotliDecompressSync(answer.body) : answer.body;
  return JSON.parse(bytes.toString('utf8')) as unknown;
};

describe('answers compressed for clients that ask', () => {
  it('picks gzip, or br, as the Accept-Encoding header and its q-values allow', () => {
    expect(acceptedCoding(undefined)).toBeUndefined();
    expect(acceptedCoding('gzip, deflate, br')).toBe('gzip');
    expect(acceptedCoding('br')).toBe('br');
    expect(acceptedCoding('br;q=1.0, gzip;q=0.5')).toBe('br');
    expect(acceptedCoding('gzip;q=0, br;q=0')).toBeUndefined();
    expect(acceptedCoding('identity')).toBeUndefined();
    expect(acceptedCoding('*')).toBe('gzip');
    expect(acceptedCoding('*, gzip;q=0')).toBe('br');
    expect(acceptedCoding('deflate')).toBeUndefined();
    expect(acceptedCoding(['deflate', 'GZIP'])).toBe('gzip');
    expect(varyOnEncoding(undefined)).toBe('Accept-Encoding');
    expect(varyOnEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyOnEncoding('origin, accept-encoding')).toBe('origin, accept-encoding');
  });

  let app: FastifyInstance;
  let url: string;
  const payloadSeenByRouteStep: string[] = [];
  beforeAll(async () => {
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics: createMetrics({ defaultMetrics: false }),
      fastRoutes: [fastRoute],
      compressMinBytes: 1024,
      plugins: [
        async (scope) => {
          scope.get(
            '/rest/big',
            {
              onSend: async (_request, _reply, payload) => {
                payloadSeenByRouteStep.push(typeof payload);
                return payload;
              },
            },
            async () => big,
          );
          scope.get('/rest/small', async () => ({ small: true }));
          scope.get('/rest/stream', async (_request, reply) => reply.type('application/json').send(Readable.from([bigText])));
          scope.get('/rest/encoded', async (_request, reply) =>
            reply.type('application/json').header('content-encoding', 'identity').send(bigText),
          );
          scope.get('/rest/png', async (_request, reply) => reply.type('image/png').send(Buffer.alloc(4096, 1)));
          scope.post('/fast/:size', async () => ({ via: 'fastify' }));
        },
      ],
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app?.close());

  it('compresses a long answer of a fast route and of a Fastify route, which decodes to the same JSON', async () => {
    for (const [method, path] of [
      ['POST', '/fast/big'],
      ['GET', '/rest/big'],
    ] as const) {
      for (const coding of ['gzip', 'br']) {
        const answer = await send(url, method, path, { 'accept-encoding': coding });
        expect(answer.status).toBe(200);
        expect(answer.headers['content-encoding']).toBe(coding);
        expect(answer.headers.vary).toMatch(/accept-encoding/i);
        expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
        expect(answer.body.length).toBeLessThan(bigText.length / 4);
        expect(decoded(answer)).toEqual(big);
      }
      const plain = await send(url, method, path);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      expect(JSON.parse(plain.body.toString('utf8'))).toEqual(big);
    }
    // A route's own onSend step runs before the compression: it sees the text (an idempotency store keeps it).
    expect(new Set(payloadSeenByRouteStep)).toEqual(new Set(['string']));
  });

  it('sends short answers, streams, answers already encoded, images and HEAD answers as they are', async () => {
    for (const [method, path] of [
      ['POST', '/fast/small'],
      ['GET', '/rest/small'],
      ['GET', '/rest/stream'],
      ['GET', '/rest/encoded'],
      ['GET', '/rest/png'],
      ['HEAD', '/rest/big'],
    ] as const) {
      const answer = await send(url, method, path, { 'accept-encoding': 'gzip, br' });
      expect(answer.status, path).toBe(200);
      expect([undefined, 'identity'], `${method} ${path}`).toContain(answer.headers['content-encoding']);
    }
  });
});
