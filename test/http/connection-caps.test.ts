import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { createMetrics } from '../../src/observability/metrics.ts';

interface Connection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  closed: Promise<void>;
}

/** A raw keep-alive connection from `localAddress` (any 127/8 address is this machine on Linux). */
function open(port: number, localAddress: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends GET /ping on the connection and waits for its answer's status (the connection stays open). */
async function ping(connection: Connection): Promise<number> {
  const before = connection.received().length;
  connection.socket.write('GET /ping HTTP/1.1\r\nhost: test\r\n\r\n');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const text = connection.received().slice(before);
    if (text.includes('{"ok":true}') || /"error"/.test(text)) return Number(text.split(' ')[1]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no answer to the ping: ${connection.received()}`);
}

/** A connection past a cap: one answer in the error format, then the server closes it. */
async function refusal(connection: Connection) {
  connection.socket.write('GET /ping HTTP/1.1\r\nhost: test\r\n\r\n');
  await within(connection.closed, 5_000, 'the refused connection closing');
  const [head = '', body = ''] = connection.received().split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('connection caps', () => {
  let app: FastifyInstance;
  let port: number;
  let pinged = 0;
  const held: Connection[] = [];

  beforeAll(async () => {
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics: createMetrics(),
      connectionCaps: { total: 5, perAddress: 3 },
      plugins: [
        async (scope) => {
          scope.get('/ping', async () => {
            pinged++;
            return { ok: true };
          });
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const connection of held) connection.socket.destroy();
    await app?.close();
  });

  it("an address's connection past its cap gets 429 and is closed; other addresses are served", async () => {
    for (let i = 0; i < 3; i++) held.push(await open(port, '127.0.0.1'));
    for (const connection of held) expect(await ping(connection)).toBe(200);
    const pingsBefore = pinged;

    const refused = await refusal(await open(port, '127.0.0.1'));
    expect(refused.status).toBe(429);
    expect(refused.headers.connection).toBe('close');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({
      error: { code: 'rate_limited', message: expect.stringMatching(/your address has 3 connections open/), status: 429 },
    });
    // The refused connection's request never reached a route.
    expect(pinged).toBe(pingsBefore);

    const other = await open(port, '127.0.0.2');
    held.push(other);
    expect(await ping(other)).toBe(200);
  });

  it('past the total cap: 503; once a connection closes, a new one is served', async () => {
    const fifth = await open(port, '127.0.0.3');
    held.push(fifth);
    expect(await ping(fifth)).toBe(200);

    const refused = await refusal(await open(port, '127.0.0.4'));
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(refused.body.error.message).toMatch(/has 5 connections open/);

    const first = held.shift()!;
    first.socket.destroy();
    await first.closed;
    // The server sees the close a moment after the client.
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      const next = await open(port, '127.0.0.4');
      const answer = await Promise.race([ping(next), next.closed.then(() => 0)]).catch(() => 0);
      status = answer;
      if (status === 200) held.push(next);
      else next.socket.destroy();
    }
    expect(status).toBe(200);
  });

  it('the counts go back to zero when every connection closes', async () => {
    for (const connection of held.splice(0)) {
      connection.socket.destroy();
      await connection.closed;
    }
    const deadline = Date.now() + 5_000;
    let fresh: Connection[] = [];
    while (Date.now() < deadline) {
      fresh = await Promise.all([0, 1, 2].map(() => open(port, '127.0.0.1')));
      const statuses = await Promise.all(fresh.map((c) => Promise.race([ping(c), c.closed.then(() => 0)]).catch(() => 0)));
      if (statuses.every((s) => s === 200)) break;
      for (const c of fresh) c.socket.destroy();
      fresh = [];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(fresh.length).toBe(3);
    held.push(...fresh);
  });
});
