import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useStartedWithKey } from '../support/service-setups.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

/** Sends raw request bytes and reads the whole answer (the server closes after a refusal). */
function rawExchange(url: string, request: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
      // A switched connection stays open: its head is the whole answer.
      if (data.startsWith('HTTP/1.1 101') && data.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n', 2);
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
  });
}

/**
 * An upgrade request that is no WebSocket opening handshake (RFC 6455 section 4.2.1) gets the spec's
 * error object, and costs nothing: it was authorized and charged, then the `ws` library refused it in
 * plain text (`Missing or invalid Sec-WebSocket-Key header`, `Invalid HTTP method`).
 */
describe('a bad WebSocket opening handshake', () => {
  let s: WsTestService;
  let key: string;
  useStartedWithKey(
    () => startWsTestService(),
    (started) => started.t.createKey({ plan: 'free' }),
    (started, created) => {
      s = started;
      key = created;
    },
  );

  const upgrade = (lines: string[], method = 'GET', path = `/v1/ws/ethereum/devnet?apiKey=${key}`) =>
    rawExchange(s.t.url, `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n${lines.join('\r\n')}\r\n\r\n`);
  const good = ['Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

  it('is answered with the error object naming the header, or 405 for another method', async () => {
    const badKey = await upgrade(['Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: x']);
    expect(badKey.status).toBe(400);
    expect(JSON.parse(badKey.body)).toEqual({
      error: { code: 'invalid_request', status: 400, message: expect.stringContaining("'Sec-WebSocket-Key'") },
    });

    const noKey = await upgrade(['Upgrade: websocket', 'Sec-WebSocket-Version: 13']);
    expect(JSON.parse(noKey.body).error.message).toContain("'Sec-WebSocket-Key'");

    const badVersion = await upgrade(['Upgrade: websocket', 'Sec-WebSocket-Version: 99', good[2] as string]);
    expect(badVersion.status).toBe(400);
    expect(badVersion.headers).toContain('sec-websocket-version: 13');
    expect(JSON.parse(badVersion.body).error.message).toContain("'Sec-WebSocket-Version'");

    const post = await upgrade(good, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers).toContain('allow: GET'.toLowerCase());
    expect(JSON.parse(post.body).error.code).toBe('method_not_allowed');

    const h2c = await upgrade(['Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA'], 'GET', '/v1/gas/ethereum/prices');
    expect(h2c.status).toBe(400);
    expect(JSON.parse(h2c.body).error.message).toContain("'Upgrade'");
  });

  it('spends nothing from the key, and a good handshake still connects', async () => {
    const before = await fetch(`${s.t.url}/v1/usage`, { headers: { 'x-api-key': key } });
    await before.arrayBuffer();
    const remaining = Number(before.headers.get('x-ratelimit-remaining-day'));
    for (let i = 0; i < 3; i++) await upgrade(['Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: x']);
    const opened = await upgrade(good);
    expect(opened.status).toBe(101);
    const after = await fetch(`${s.t.url}/v1/usage`, { headers: { 'x-api-key': key } });
    await after.arrayBuffer();
    // The opened socket and this request: nothing for the three refused handshakes.
    expect(Number(after.headers.get('x-ratelimit-remaining-day'))).toBe(remaining - 2);
  });
});
