// Renders the heavy answers (blocks with their transactions, receipts) of the synthetic node off its
// HTTP thread: a 25-block batch is ~22 MB, and rendered on the thread that answers the service's head
// probes it held them past the stall watch's deadline, which no multi-threaded real node does.
import { parentPort, workerData } from 'node:worker_threads';
import type { BlockShape } from './synthetic-blocks.ts';
import { createBlockTemplates } from './synthetic-templates.ts';

interface Job {
  id: number;
  calls: { id: unknown; method: string; params?: unknown[] }[];
  /** The request was a batch (answered with an array) rather than one call. */
  batch: boolean;
  head: number;
}

const { shape, genesisS, blockTimeMs } = workerData as { shape: BlockShape; genesisS: number; blockTimeMs: number };
const templates = createBlockTemplates(shape);
const cache = new Map<number, ReturnType<typeof templates.render>>();

const rendered = (number: number) => {
  let found = cache.get(number);
  if (!found) {
    found = templates.render(number, genesisS + Math.floor((number * blockTimeMs) / 1000));
    cache.set(number, found);
    if (cache.size > 128) cache.delete(cache.keys().next().value as number);
  }
  return found;
};

parentPort!.on('message', (job: Job) => {
  const parts = job.calls.map((call) => {
    const id = JSON.stringify(call.id ?? null);
    const tag = call.params?.[0];
    const number = typeof tag === 'string' && tag.startsWith('0x') ? Number.parseInt(tag, 16) : job.head;
    if (number > job.head) return `{"jsonrpc":"2.0","id":${id},"result":null}`;
    const block = rendered(number);
    const text = call.method === 'eth_getBlockReceipts' ? block.receipts : call.params?.[1] === true ? block.block : block.header;
    return `{"jsonrpc":"2.0","id":${id},"result":${text}}`;
  });
  // A fresh buffer of its own (never Node's shared pool), so it can move to the HTTP thread uncopied.
  const body = new TextEncoder().encode(job.batch ? `[${parts.join(',')}]` : parts[0]!);
  parentPort!.postMessage({ id: job.id, body }, [body.buffer as ArrayBuffer]);
});
