import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectRaw, eventually, type Message, type RawClient } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

/** The HTTP answer to an upgrade the server refuses (no WebSocket is made). */
function refusedUpgrade(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: Message }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => reject(new Error('no answer to the upgrade')), 10_000);
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => {});
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk;
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) });
      });
    });
  });
}

/**
 * Opens a WebSocket by hand and sends one frame with the opcode and payload given (masked, as a client
 * must). Resolves with the server's close code once it closes, or `open` if it keeps the connection 2 s.
 */
function sendRawFrame(url: string, opcode: number, payload: Buffer): Promise<{ closeCode: number | 'open' | undefined }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const socket = connect(Number(target.port), target.hostname);
    socket.on('error', () => {});
    const key = randomBytes(16).toString('base64');
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    let received = Buffer.alloc(0);
    let upgraded = false;
    let keptOpen = false;
    const timer = setTimeout(() => {
      keptOpen = true;
      socket.destroy();
    }, 2_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded) {
        const end = received.indexOf('\r\n\r\n');
        if (end === -1) return;
        if (!received.subarray(0, end).toString().includes(accept)) reject(new Error(received.toString()));
        upgraded = true;
        received = received.subarray(end + 4);
        const mask = randomBytes(4);
        const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
        const length =
          payload.length < 126
            ? Buffer.from([0x80 | payload.length])
            : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
        socket.write(Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked]));
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      // The server's close frame: opcode 0x8, its payload starts with the code.
      const at = received.indexOf(0x88);
      if (keptOpen) return resolve({ closeCode: 'open' });
      resolve({ closeCode: at === -1 || received.length < at + 4 ? undefined : received.readUInt16BE(at + 2) });
    });
    socket.write(
      `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

describe('WebSocket resource limits', () => {
  let s: WsTestService;
  let key: string;
  beforeAll(async () => {
    s = await startWsTestService({
      settings: { limits: { ws_max_connections_per_account: 3, ws_max_connections_per_ip: 5, ws_max_buffered_bytes: 64 * 1024 } },
    });
    key = (await s.t.createKey()).key;
  });
  afterAll(() => s?.stop());

  it('10,000 eth_subscribe on one connection: 100 are taken, the rest get -32005 naming the cap; the server stays healthy', async () => {
    const client = await connectRaw(s.wsUrl(key));
    let id = 0;
    for (let batch = 0; batch < 100; batch++) {
      client.send(
        Array.from({ length: 100 }, () => ({ jsonrpc: '2.0', id: ++id, method: 'eth_subscribe', params: ['newHeads'] })),
      );
    }
    await eventually(() => (client.messages.length === 100 ? true : undefined), 60_000);
    const answers = client.messages.flat();
    expect(answers.length).toBe(10_000);
    expect(answers.filter((a) => typeof a.result === 'string').length).toBe(100);
    const refused = answers.filter((a) => a.error);
    expect(refused.length).toBe(9_900);
    expect(new Set(refused.map((a) => a.error.code))).toEqual(new Set([-32005]));
    expect(refused[0].error.message).toMatch(/already has 100 subscriptions, the most allowed/);
    expect(await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })).toBe(100);

    client.close();
    await client.closed;
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) === 0 ? true : undefined));
    const after = await connectRaw(s.wsUrl(key));
    expect((await after.call('eth_chainId')).result).toBe('0x7a69');
    after.close();
    expect((await fetch(`${s.t.url}/healthz`)).status).toBe(200);
  }, 90_000);

  it('a client that never reads while heads stream is closed with 4008, and memory does not grow with what it leaves unread', async () => {
    const slow = await connectRaw(s.wsUrl(key));
    await Promise.all(Array.from({ length: 100 }, () => slow.call('eth_subscribe', ['newHeads'])));
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    await eventually(async () => {
      peak = Math.max(peak, process.memoryUsage().rss);
      if ((await s.metric('blockyard_ws_server_closes_total', { reason: 'slow_consumer' })) >= 1) return true;
      await s.anvilCall('anvil_mine', ['0x20']);
      return undefined;
    }, 40_000);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: expect.stringMatching(/slow consumer: over 65536 bytes unread/) });
    // The service and this test share the process: a bound well under what unbounded buffering of
    // thousands of 100-subscription heads would take.
    expect(peak - rssBefore).toBeLessThan(150 * 1024 * 1024);
    const after = await connectRaw(s.wsUrl(key));
    expect((await after.call('eth_chainId')).result).toBe('0x7a69');
    after.close();
  }, 60_000);

  it('an answer larger than the unread bound is sent whole to a client that reads (eth_call, eth_getLogs-sized), and the connection stays open', async () => {
    const client = await connectRaw(s.wsUrl(key));
    // Code that returns 200,000 zero bytes: the answer is about 400 KB of hex, six times the 64 KiB bound.
    const returner = '0x00000000000000000000000000000000000b1600';
    const code = `0x62${(200_000).toString(16).padStart(6, '0')}6000f3`;
    const big = await client.call('eth_call', [{ to: returner, gas: '0x1c9c380' }, 'latest', { [returner]: { code } }]);
    expect(big.error).toBeUndefined();
    expect(big.result).toBe(`0x${'00'.repeat(200_000)}`);
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    client.close();
  }, 30_000);

  it('concurrent connections: past 3 for an account or 5 for an address, the upgrade is refused with 429', async () => {
    const { key: mine } = await s.t.createKey();
    const { key: other } = await s.t.createKey();
    const open: RawClient[] = [];
    try {
      for (let i = 0; i < 3; i++) open.push(await connectRaw(s.wsUrl(mine)));
      const perAccount = await refusedUpgrade(s.wsUrl(mine));
      expect(perAccount.status).toBe(429);
      expect(perAccount.headers['retry-after']).toBe('1');
      expect(perAccount.body).toEqual({
        error: {
          code: 'rate_limited',
          message: expect.stringMatching(/this account has 3 WebSocket connections open/),
          status: 429,
        },
      });

      for (let i = 0; i < 2; i++) open.push(await connectRaw(s.wsUrl(other)));
      const perAddress = await refusedUpgrade(s.wsUrl(other));
      expect(perAddress.status).toBe(429);
      expect(perAddress.body.error.message).toMatch(/your address has 5 WebSocket connections open/);

      // A closed connection frees its slot.
      open.shift()!.close();
      const again = await eventually(async () => connectRaw(s.wsUrl(mine)).catch(() => undefined));
      open.push(again);
      expect((await again.call('eth_chainId')).result).toBe('0x7a69');
    } finally {
      for (const client of open) client.close();
      await Promise.all(open.map((client) => client.closed));
    }
  }, 30_000);

  it('malformed frames (invalid UTF-8, a reserved opcode) close that connection alone; the service keeps serving', async () => {
    const url = s.wsUrl(key);
    const binary = await sendRawFrame(url, 0x2, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'));
    // JSON-RPC over a binary frame is read as text (as nodes do): answered, the connection kept.
    expect(binary.closeCode).toBe('open');
    expect((await sendRawFrame(url, 0x1, Buffer.from([0x22, 0xff, 0xfe, 0x22]))).closeCode).toBe(1007);
    expect((await sendRawFrame(url, 0x3, Buffer.from('x'))).closeCode).toBe(1002);
    const bystander = await connectRaw(url);
    bystander.send('not json at all');
    expect((await bystander.waitFor((m) => m.error?.code === -32700)).error.message).toMatch(/not valid JSON/);
    expect((await bystander.call('eth_chainId')).result).toBe('0x7a69');
    bystander.close();
    await eventually(async () => ((await s.metric('blockyard_ws_connections')) === 0 ? true : undefined));
  });
});
