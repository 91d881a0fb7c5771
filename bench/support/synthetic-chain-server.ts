// A JSON-RPC node on 127.0.0.1 that serves a synthetic chain (synthetic-blocks.ts) growing one block
// every `blockTimeMs`: the indexer's upstream in `npm run bench:indexer`'s real-chain rows. It answers
// what the service asks of an EVM node (chain id, head, blocks, receipts) and refuses tracing, as many
// providers do. Blocks are rendered in worker threads (synthetic-chain-worker.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { BlockShape } from './synthetic-blocks.ts';

export interface SyntheticChain {
  readonly url: string;
  /** The newest block served now. */
  head(): number;
  /** When block `number` became the head (performance.now()); blocks up to the first head: the start. */
  producedAt(number: number): number;
  close(): Promise<void>;
}

interface Call {
  id: unknown;
  method: string;
  params?: unknown[];
}

const blockMethods = new Set(['eth_getBlockByNumber', 'eth_getBlockReceipts']);
const workerCount = 2;

export async function startSyntheticChain(options: {
  chainId: number;
  shape: BlockShape;
  blockTimeMs: number;
  /** The head when the server starts: blocks 0..history exist already. */
  history: number;
}): Promise<SyntheticChain> {
  const startedAt = performance.now();
  const genesisS = Math.floor(Date.now() / 1000) - Math.ceil((options.history * options.blockTimeMs) / 1000);
  const head = () => options.history + Math.floor((performance.now() - startedAt) / options.blockTimeMs);
  const render = createRenderPool({ shape: options.shape, genesisS, blockTimeMs: options.blockTimeMs });
  await render.ready;

  const lightAnswer = (call: Call): string => {
    const id = JSON.stringify(call.id ?? null);
    const result = (value: string) => `{"jsonrpc":"2.0","id":${id},"result":${value}}`;
    if (call.method === 'eth_chainId') return result(`"0x${options.chainId.toString(16)}"`);
    if (call.method === 'net_version') return result(`"${options.chainId}"`);
    if (call.method === 'eth_blockNumber') return result(`"0x${head().toString(16)}"`);
    return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"the method ${call.method} does not exist/is not available"}}`;
  };
  const answer = async (parsed: Call | Call[]): Promise<string | Uint8Array> => {
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    // Tags name the head; the worker takes numbers.
    const current = head();
    const named = calls.map((call) => {
      const tag = call.params?.[0];
      if (!blockMethods.has(call.method) || typeof tag !== 'string' || tag.startsWith('0x')) return call;
      const number = tag === 'earliest' ? 0 : current;
      return { ...call, params: [`0x${number.toString(16)}`, ...(call.params?.slice(1) ?? [])] };
    });
    if (named.every((call) => !blockMethods.has(call.method))) {
      const texts = named.map(lightAnswer);
      return Array.isArray(parsed) ? `[${texts.join(',')}]` : texts[0]!;
    }
    if (named.some((call) => !blockMethods.has(call.method))) {
      // Mixed batches do not occur in what the service sends; answered light calls first, blocks after.
      const texts = await Promise.all(
        named.map(async (call) =>
          blockMethods.has(call.method) ? Buffer.from(await render.run([call], false, current)).toString() : lightAnswer(call),
        ),
      );
      return Array.isArray(parsed) ? `[${texts.join(',')}]` : texts[0]!;
    }
    return render.run(named, Array.isArray(parsed), current);
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let parsed: Call | Call[];
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      } catch {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
        return;
      }
      answer(parsed).then(
        (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
        () => response.writeHead(500).end(),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    head,
    producedAt: (number) => startedAt + Math.max(0, number - options.history) * options.blockTimeMs,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await render.close();
    },
  };
}

/** tsx's loader hooks belong to the thread that registered them: the worker registers its own, then loads its module. */
const workerBootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(
  new URL('./synthetic-chain-worker.ts', import.meta.url).href,
)}); })`;

/** Worker threads that render block answers, taken in turn. */
function createRenderPool(data: { shape: BlockShape; genesisS: number; blockTimeMs: number }) {
  const workers = Array.from({ length: workerCount }, () => new Worker(workerBootstrap, { eval: true, workerData: data }));
  const pending = new Map<number, (body: Uint8Array) => void>();
  for (const worker of workers) worker.on('message', ({ id, body }: { id: number; body: Uint8Array }) => pending.get(id)?.(body));
  let nextId = 0;
  let turn = 0;
  return {
    ready: Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('online', resolve)))),
    run(calls: Call[], batch: boolean, head: number): Promise<Uint8Array> {
      const id = nextId++;
      const worker = workers[turn++ % workers.length]!;
      return new Promise((resolve) => {
        pending.set(id, (body) => {
          pending.delete(id);
          resolve(body);
        });
        worker.postMessage({ id, calls, batch, head });
      });
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
