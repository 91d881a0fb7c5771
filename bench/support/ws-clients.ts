// A load-generator process for bench/ws.ts: opens N WebSocket clients, each subscribed to newHeads (or
// to one contract's logs), records when each head (or log) reaches each client, and reports over IPC;
// then closes them, ready to connect to the next server. Exits when its parent goes away or after BENCH_WS_CLIENT_MAX_MS,
// whichever comes first.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import {
  type ClientsClosed,
  type ClientsReport,
  type FromClients,
  logsAddress,
  monotonicUs,
  type ToClients,
  type WsEndpoint,
} from './ws-protocol.ts';

const maxLifeMs = Number(process.env.BENCH_WS_CLIENT_MAX_MS ?? 600_000);
/** A head's `number`, or a log's `blockNumber`. */
const numberField = /"(?:number|blockNumber)":"(0x[0-9a-fA-F]+)"/;

interface Client {
  ws: WebSocket;
  receipts: number[];
  /** Closed by this process (disconnect), not by the server. */
  leaving: boolean;
}

let clients: Client[] = [];
const closes: number[] = [];
let unexpected = 0;
let measuring = false;
let handlerUs = 0;
let eluStart: ReturnType<typeof performance.eventLoopUtilization> | undefined;

const send = (message: FromClients) => process.send?.(message);
const exit = (code: number) => {
  for (const client of clients) client.ws.terminate();
  process.exit(code);
};
process.on('disconnect', () => exit(0));
process.on('SIGINT', () => exit(130));
process.on('SIGTERM', () => exit(143));
setTimeout(() => exit(1), maxLifeMs).unref();

process.on('message', (message: ToClients) => {
  switch (message.type) {
    case 'connect':
      void connectAll(message).then(send);
      return;
    case 'measure':
      for (const client of clients) client.receipts.length = 0;
      unexpected = 0;
      handlerUs = 0;
      measuring = true;
      eluStart = performance.eventLoopUtilization();
      return;
    case 'report':
      send(report());
      return;
    case 'disconnect':
      void disconnectAll(message.timeoutMs).then(send);
      return;
  }
});

async function disconnectAll(timeoutMs: number): Promise<ClientsClosed> {
  measuring = false;
  const leaving = clients;
  clients = [];
  closes.length = 0;
  const open = leaving.filter((client) => client.ws.readyState !== WebSocket.CLOSED);
  const closed = Promise.all(open.map((client) => new Promise((resolve) => client.ws.once('close', resolve))));
  for (const client of open) {
    client.leaving = true;
    client.ws.close(1000);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  let terminated = 0;
  if (late) {
    for (const client of open) {
      if (client.ws.readyState === WebSocket.CLOSED) continue;
      client.ws.terminate();
      terminated++;
    }
  }
  return { type: 'closed', terminated };
}

function report(): ClientsReport {
  const elu = eluStart ? performance.eventLoopUtilization(eluStart).utilization : Number.NaN;
  return {
    type: 'report',
    receipts: clients.map((client) => client.receipts),
    closes: [...closes],
    unexpected,
    eventLoopUse: elu,
    handlerMs: handlerUs / 1000,
  };
}

async function connectAll(options: Extract<ToClients, { type: 'connect' }>): Promise<FromClients> {
  const started = Date.now();
  const errors: string[] = [];
  unexpected = 0;
  let next = 0;
  let failed = 0;
  const count = options.endpoints.length;
  const worker = async () => {
    while (next < count) {
      const endpoint = options.endpoints[next++]!;
      try {
        clients.push(await connectOne(endpoint, options.timeoutMs));
      } catch (error) {
        failed++;
        if (errors.length < 5) errors.push((error as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, worker));
  return { type: 'ready', subscribed: clients.length, failed, errors, ms: Date.now() - started };
}

/** Opens one client (from its endpoint's local address) and subscribes it; rejects after `timeoutMs`. */
function connectOne(endpoint: WsEndpoint, timeoutMs: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(endpoint.url, {
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs,
      localAddress: endpoint.localAddress,
    });
    const client: Client = { ws, receipts: [], leaving: false };
    let subscribed = false;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`not subscribed within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      reject(new Error(`upgrade answered ${response.statusCode}`));
      ws.terminate();
    });
    ws.on('error', (error) => {
      clearTimeout(timer);
      if (!subscribed) reject(error);
    });
    ws.on('close', (code) => {
      clearTimeout(timer);
      if (subscribed && !client.leaving) closes.push(code);
      else reject(new Error(`closed with ${code} before subscribing`));
    });
    ws.on('open', () => {
      const params = endpoint.subscribe === 'logs' ? ['logs', { address: logsAddress }] : ['newHeads'];
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params }));
    });
    ws.on('message', (data) => {
      const receivedUs = monotonicUs();
      const text = (data as Buffer).toString('utf8');
      if (!subscribed) {
        const answer = JSON.parse(text) as { id?: unknown; result?: unknown };
        if (answer.id === 1 && typeof answer.result === 'string') {
          subscribed = true;
          clearTimeout(timer);
          resolve(client);
        } else {
          clearTimeout(timer);
          reject(new Error(`eth_subscribe answered ${text.slice(0, 200)}`));
          ws.terminate();
        }
        return;
      }
      const match = numberField.exec(text);
      if (match && text.includes('"eth_subscription"')) client.receipts.push(Number.parseInt(match[1]!, 16), receivedUs);
      else unexpected++;
      if (measuring) handlerUs += monotonicUs() - receivedUs;
    });
  });
}
