import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { HeadFeed } from './head-feed.ts';
import { nginx502Page } from './http-front.ts';
import { type CallAnswer, errorReply, parseRequest, type RpcCall, resultReply } from './json-rpc.ts';
import { pendingAnswer, relayPending } from './pending-relay.ts';
import { answerInOrder, type SimCore, sleep } from './sim-core.ts';

/**
 * JSON-RPC over WebSocket on the HTTP port: the same node logic, plus eth_subscribe newHeads (lag applied)
 * and newPendingTransactions in the forms `pendingForm` says.
 * A connection stays on one node, as load balancers pin them: lagBlocks applies, `alternate` does not.
 */
export interface WsFront {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Terminates every client connection, as a node restart or a load balancer's idle cut does. */
  dropSockets(): void;
  close(): void;
}

export function createWsFront(core: SimCore, heads: HeadFeed | undefined, upstreamWs: string | undefined): WsFront {
  const server = new WebSocketServer({ noServer: true });
  const upgrading = new Set<Duplex>();
  server.on('connection', (client) => serveClient(core, heads, upstreamWs, client));
  return {
    handleUpgrade(request, socket, head) {
      upgrading.add(socket);
      socket.once('close', () => upgrading.delete(socket));
      // A stalled node accepts the connection but never completes the handshake.
      core.gate.pass().then(
        () => {
          upgrading.delete(socket);
          if (core.behaviour().html502) return refuseUpgrade(socket);
          server.handleUpgrade(request, socket, head, (client) => server.emit('connection', client, request));
        },
        () => socket.destroy(),
      );
    },
    dropSockets: () => {
      for (const client of server.clients) client.terminate();
    },
    close() {
      for (const socket of upgrading) socket.destroy();
      for (const client of server.clients) client.terminate();
      server.close();
    },
  };
}

function refuseUpgrade(socket: Duplex): void {
  const head = `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(nginx502Page)}\r\nconnection: close\r\n\r\n`;
  socket.end(head + nginx502Page);
}

/** One client connection: its subscriptions, and one queue so replies and notifications leave in order. */
function serveClient(core: SimCore, heads: HeadFeed | undefined, upstreamWs: string | undefined, client: WebSocket): void {
  const subscriptions = new Map<string, () => void>();
  let sending = Promise.resolve();
  const send = (payload: unknown) => {
    sending = sending
      .then(() => core.gate.pass())
      .then(() => {
        if (client.readyState === client.OPEN) client.send(JSON.stringify(payload));
      })
      .catch(() => {});
  };
  const session: ClientSession = { core, heads, upstreamWs, subscriptions, send };
  client.on('message', (data) => void answerMessage(session, String(data)).catch(() => {}));
  client.on('close', () => {
    for (const unsubscribe of subscriptions.values()) unsubscribe();
    subscriptions.clear();
  });
}

interface ClientSession {
  core: SimCore;
  heads: HeadFeed | undefined;
  upstreamWs: string | undefined;
  subscriptions: Map<string, () => void>;
  send(payload: unknown): void;
}

async function answerMessage(session: ClientSession, text: string): Promise<void> {
  const { core } = session;
  const parsed = parseRequest(text);
  if (!parsed.ok) return session.send(parsed.reply);
  core.log.received(parsed.calls.map((call) => call.method));
  await core.gate.pass();
  const behaviour = core.behaviour();
  const admitted = core.admit(parsed.calls);
  // Notifications of a new subscription wait until its id has been sent.
  const starts: (() => void)[] = [];
  const answers = await answerInOrder(core, parsed.calls, admitted, behaviour.lagBlocks, (call) =>
    answerSubscriptionCall(session, call, starts),
  );
  await sleep(behaviour.latencyMs);
  const replies = answers.map((answer) => answer.reply);
  session.send(parsed.batch ? replies : replies[0]);
  for (const start of starts) start();
}

function answerSubscriptionCall(session: ClientSession, call: RpcCall, starts: (() => void)[]): Promise<CallAnswer> | undefined {
  if (call.method === 'eth_unsubscribe') {
    const id = String(call.params?.[0]);
    const unsubscribe = session.subscriptions.get(id);
    unsubscribe?.();
    session.subscriptions.delete(id);
    return Promise.resolve(resultReply(call, unsubscribe !== undefined));
  }
  if (call.method !== 'eth_subscribe') return undefined;
  const pendingForm = session.core.behaviour().pendingForm;
  if (call.params?.[0] === 'newPendingTransactions' && pendingForm !== undefined && session.upstreamWs !== undefined) {
    const answer = pendingAnswer(pendingForm, call.params);
    if (typeof answer === 'object') return Promise.resolve(errorReply(call, { code: -32602, message: answer.refused }));
    const id = `0x${randomBytes(16).toString('hex')}`;
    let started = false;
    const notify = (item: unknown) => {
      if (started) session.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: item } });
    };
    const relay = relayPending(session.upstreamWs, answer === 'whole', notify);
    session.subscriptions.set(id, relay.stop);
    starts.push(() => {
      started = true;
    });
    return relay.ready.then(
      () => resultReply(call, id),
      (error: Error) => errorReply(call, { code: -32603, message: error.message }),
    );
  }
  if (call.params?.[0] !== 'newHeads' || session.heads === undefined) {
    return Promise.resolve(errorReply(call, { code: -32602, message: 'provider simulator: only newHeads is relayed' }));
  }
  const id = `0x${randomBytes(16).toString('hex')}`;
  const held: unknown[] = [];
  let started = false;
  const notify = (header: unknown) =>
    session.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: header } });
  session.subscriptions.set(
    id,
    session.heads.subscribe((header) => (started ? notify(header) : held.push(header))),
  );
  starts.push(() => {
    started = true;
    for (const header of held.splice(0)) notify(header);
  });
  return Promise.resolve(resultReply(call, id));
}
