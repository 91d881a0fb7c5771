// The baseline of bench/ws.ts: the least a Node process can do to fan a head out. It holds one
// newHeads and one logs subscription on anvil (BENCH_WS_UPSTREAM) and, for each notification, frames
// anvil's message once and writes that one buffer to every client socket of that kind: no per-client
// bytes, one socket write each. Clients subscribe as they would to Blockyard (eth_subscribe newHeads,
// or logs of the bench's contract) and get anvil's subscription id. Prints `LISTENING <url>` like the
// other child servers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { textFrameHeader } from '../../src/ws/subscription-frame.ts';
import { exitWhenTold } from './child-server.ts';
import { logsAddress } from './ws-protocol.ts';

const upstreamUrl = process.env.BENCH_WS_UPSTREAM;
if (!upstreamUrl) throw new Error('BENCH_WS_UPSTREAM (anvil WebSocket URL) is required');

type Kind = 'newHeads' | 'logs';
const sockets: Record<Kind, Set<Duplex>> = { newHeads: new Set(), logs: new Set() };
const subscriptionIds: Record<Kind, string> = { newHeads: '', logs: '' };
const upstream = new WebSocket(upstreamUrl, { perMessageDeflate: false });
const subscribed = new Promise<void>((resolve, reject) => {
  upstream.once('error', reject);
  upstream.once('open', () => {
    upstream.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    upstream.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', { address: logsAddress }] }));
  });
  upstream.on('message', (data) => {
    const message = data as Buffer;
    const parsed = JSON.parse(String(message)) as { id?: number; result?: unknown; params?: { subscription?: string } };
    if (parsed.id === 1 || parsed.id === 2) {
      if (typeof parsed.result !== 'string') return reject(new Error(`anvil answered eth_subscribe with ${String(message)}`));
      subscriptionIds[parsed.id === 1 ? 'newHeads' : 'logs'] = parsed.result;
      if (subscriptionIds.newHeads && subscriptionIds.logs) resolve();
      return;
    }
    fanOut(parsed.params?.subscription === subscriptionIds.logs ? 'logs' : 'newHeads', message);
  });
});

function fanOut(kind: Kind, payload: Buffer) {
  const frame = Buffer.concat([textFrameHeader(payload.length), payload]);
  for (const socket of sockets[kind]) socket.write(frame);
}

await subscribed;
const server = createServer((_request, response) => response.writeHead(404).end());
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws, request) => {
  const socket = request.socket;
  ws.on('message', (data) => {
    const call = JSON.parse(String(data)) as { id?: unknown; params?: unknown[] };
    const kind: Kind = call.params?.[0] === 'logs' ? 'logs' : 'newHeads';
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result: subscriptionIds[kind] }));
    sockets[kind].add(socket);
  });
  ws.on('close', () => {
    sockets.newHeads.delete(socket);
    sockets.logs.delete(socket);
  });
  ws.on('error', () => {});
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

exitWhenTold(async () => {
  upstream.terminate();
  for (const ws of wss.clients) ws.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
process.stdout.write(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
