// The webhook benchmark's receiver, in its own process: a plain node:http server on 127.0.0.1 that
// answers every POST with 200 as soon as its body has arrived, and counts what it got per group (the
// first path segment: /latency, /throughput/<n>, /baseline). Receipt times are taken when the request's
// headers are parsed, on the monotonic clock (comparable with the benchmark process's, Linux) and the
// wall clock. Prints `LISTENING <url>` like the other child servers.
//   GET /stats/<group>   {count, firstUs, lastUs, duplicates, bytes, heads?}
//   GET /sample/<group>  the headers and body of the first delivery the group got
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitWhenTold } from './child-server.ts';
import { monotonicUs, wallMs as nowWallMs, type ReceiverSample, type ReceiverStats } from './webhook-protocol.ts';

interface Group {
  count: number;
  firstUs: number;
  lastUs: number;
  duplicates: number;
  bytes: number;
  keys: Set<string>;
  /** /latency only: per delivery [block number, received monotonic us, received wall ms]. */
  heads: number[];
  sample?: ReceiverSample;
}

const groups = new Map<string, Group>();
const keptHeaders = /^(content-type|user-agent|x-webhook-|x-service-|webhook-)/;

function groupOf(name: string): Group {
  let group = groups.get(name);
  if (!group) {
    group = { count: 0, firstUs: 0, lastUs: 0, duplicates: 0, bytes: 0, keys: new Set(), heads: [] };
    groups.set(name, group);
  }
  return group;
}

function receive(request: IncomingMessage, name: string, receivedUs: number, wallMs: number, body: Buffer): void {
  const group = groupOf(name);
  group.count++;
  if (group.count === 1) group.firstUs = receivedUs;
  group.lastUs = Math.max(group.lastUs, receivedUs);
  group.bytes += body.length;
  const key = request.headers['x-webhook-idempotency-key'];
  if (typeof key === 'string') {
    // The same event twice at one endpoint (at-least-once delivery allows it; a benchmark should see none).
    const scoped = `${request.url}|${key}`;
    if (group.keys.has(scoped)) group.duplicates++;
    else group.keys.add(scoped);
  }
  if (!group.sample && name !== 'baseline') {
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(request.headers)) {
      if (keptHeaders.test(header) && typeof value === 'string') headers[header] = value;
    }
    group.sample = { headers, body: body.toString('utf8') };
  }
  if (name === 'latency') {
    const parsed = JSON.parse(body.toString('utf8')) as { data?: { block_number?: number } };
    group.heads.push(Number(parsed.data?.block_number ?? -1), receivedUs, wallMs);
  }
}

function stats(name: string): ReceiverStats {
  const group = groupOf(name);
  return {
    count: group.count,
    firstUs: group.firstUs,
    lastUs: group.lastUs,
    duplicates: group.duplicates,
    bytes: group.bytes,
    ...(name === 'latency' ? { heads: group.heads } : {}),
  };
}

const server = createServer((request, response) => {
  const receivedUs = monotonicUs();
  const wallMs = nowWallMs();
  const [, first, second] = (request.url ?? '/').split('?')[0]!.split('/');
  if (request.method === 'GET') {
    request.resume();
    const answer =
      first === 'stats' ? stats(second ?? '') : first === 'sample' ? (groupOf(second ?? '').sample ?? null) : undefined;
    if (answer === undefined) return response.writeHead(404).end();
    const text = JSON.stringify(answer);
    return response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
    receive(request, first ?? '', receivedUs, wallMs, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  exitWhenTold(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
});
