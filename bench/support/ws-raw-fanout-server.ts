// The baseline of bench/ws.ts: the least a Node process can do to fan a head out. It holds one
// newHeads subscription on anvil (BENCH_WS_UPSTREAM) and, for each notification, frames anvil's
// message once and writes that one buffer to every client socket: no parsing, no per-client bytes,
// one socket write each. Clients subscribe as they would to Blockyard (eth_subscribe newHeads) and
// get anvil's subscription id. Prints `LISTENING <url>` like the other child servers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { textFrameHeader } from '../../src/ws/subscription-frame.ts';
import { exitWhenTold } from './child-server.ts';

const upstreamUrl = process.env.BENCH_WS_UPSTREAM;
if (!upstreamUrl) throw new Error('BENCH_WS_UPSTREAM (anvil WebSocket URL) is required');

const sockets = new Set<Duplex>();
const upstream = new WebSocket(upstreamUrl, { perMessageDeflate: false });
const subscription = new Promise<string>((resolve, reject) => {
  upstream.once('error', reject);
  upstream.once('open', () => upstream.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}'));
  upstream.once('message', (data) => {
    const answer = JSON.parse(String(data)) as { result?: unknown };
    if (typeof answer.result !== 'string') return reject(new Error(`anvil answered eth_subscribe with ${String(data)}`));
    upstream.on('message', (message) => fanOut(message as Buffer));
    resolve(answer.result);
  });
});

function fanOut(payload: Buffer) {
  const frame = Buffer.concat([textFrameHeader(payload.length), payload]);
  for (const socket of sockets) socket.write(frame);
}

const id = await subscription;
const server = createServer((_request, response) => response.writeHead(404).end());
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws, request) => {
  const socket = request.socket;
  ws.on('message', (data) => {
    const call = JSON.parse(String(data)) as { id?: unknown };
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result: id }));
    sockets.add(socket);
  });
  ws.on('close', () => sockets.delete(socket));
  ws.on('error', () => {});
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

exitWhenTold(async () => {
  upstream.terminate();
  for (const ws of wss.clients) ws.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
process.stdout.write(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
