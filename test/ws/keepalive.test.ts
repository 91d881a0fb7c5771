import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

const pingIntervalMs = 2_000;
const clientCount = 10;

/** A client that notes when each server ping came; `answers: false` leaves them unanswered. */
async function pingedClient(url: string, answers: boolean) {
  const ws = new WebSocket(url, { autoPong: answers });
  const pings: number[] = [];
  ws.on('ping', () => pings.push(performance.now()));
  ws.on('error', () => {});
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  return { ws, pings, closed };
}

/** Times grouped wherever two neighbours are more than `gapMs` apart. */
function clusters(times: number[], gapMs: number): number[][] {
  const groups: number[][] = [];
  for (const time of [...times].sort((a, b) => a - b)) {
    const last = groups.at(-1);
    if (last && time - last.at(-1)! <= gapMs) last.push(time);
    else groups.push([time]);
  }
  return groups;
}

describe('keepalive pings (limits.ws_ping_interval_ms)', () => {
  let s: WsTestService;
  let key: string;
  beforeAll(async () => {
    s = await startWsTestService({ settings: { limits: { ws_ping_interval_ms: pingIntervalMs } } });
    key = (await s.t.createKey()).key;
  });
  afterAll(() => s?.stop());

  it('pings each client once per interval, a slice of them at a time, and drops one that does not answer', async () => {
    const answering = await Promise.all(Array.from({ length: clientCount }, () => pingedClient(s.wsUrl(key), true)));
    const silent = await pingedClient(s.wsUrl(key), false);
    const connectedAt = performance.now();
    const dropsBefore = await s.metric('blockyard_ws_server_closes_total', { reason: 'keepalive' });

    // Pinged once, then dropped at its next ping: within two intervals and a tick.
    const code = await Promise.race([
      silent.closed,
      new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 2 * pingIntervalMs + 2_000)),
    ]);
    expect(code, 'terminated without a close frame').toBe(1006);
    expect(silent.pings.length).toBeGreaterThanOrEqual(1);
    expect(await s.metric('blockyard_ws_server_closes_total', { reason: 'keepalive' })).toBe(dropsBefore + 1);

    // Two more intervals: every answering client is still open and was pinged about once per interval.
    await new Promise((resolve) => setTimeout(resolve, 2 * pingIntervalMs));
    const intervals = (performance.now() - connectedAt) / pingIntervalMs;
    for (const client of answering) {
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
      expect(client.pings.length).toBeGreaterThanOrEqual(Math.floor(intervals));
      expect(client.pings.length).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    }
    // Not all at once: the first pings once all were connected came in two slices (1 s ticks), the
    // clients split evenly between them.
    const firstPings = clusters(
      answering.map((client) => client.pings.find((at) => at > connectedAt)!),
      300,
    );
    expect(firstPings.map((group) => group.length).sort()).toEqual([5, 5]);
    expect(firstPings[1]![0]! - firstPings[0]!.at(-1)!).toBeGreaterThan(500);
    for (const client of answering) client.ws.close();
  });
});
