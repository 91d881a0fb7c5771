import type { Hex } from 'viem';
import type { BlockBundle, RawBlock, RawReceipt, RawTrace } from './raw-types.ts';

/** How internal transfers are read: parity `trace_block`, geth `debug_traceBlockByNumber`, or not at all. */
export type TracingMethod = 'trace_block' | 'debug_traceBlockByNumber' | 'none';

export interface ChainReader {
  /** The upstream's newest block number. */
  head(): Promise<number>;
  /** Canonical hashes of these block numbers (absent when the block does not exist). */
  blockHashes(numbers: readonly number[]): Promise<Map<number, string>>;
  /** Blocks `from..to` with receipts (and traces when the upstream has them), in one batched request. */
  bundles(from: number, to: number): Promise<BlockBundle[]>;
  /** Which tracing method is in use, once the first bundle was fetched. */
  tracing(): TracingMethod | 'unknown';
}

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A node answered a request the indexer needs with an error or nothing. */
export class ChainReadError extends Error {
  override name = 'ChainReadError';
}

const hex = (value: number): Hex => `0x${value.toString(16)}`;

/** Reads blocks for the indexer through `send` (the network's upstream pool) using JSON-RPC batches. */
export function createChainReader(options: { send: (body: string) => Promise<string>; tracing?: TracingMethod }): ChainReader {
  let tracing: TracingMethod | 'unknown' = options.tracing ?? 'unknown';
  let nextId = 1;

  async function batch(calls: { method: string; params: unknown[] }[]): Promise<RpcAnswer[]> {
    const first = nextId;
    nextId += calls.length;
    const body = JSON.stringify(calls.map((call, index) => ({ jsonrpc: '2.0', id: first + index, ...call })));
    const parsed = JSON.parse(await options.send(body)) as RpcAnswer[] | RpcAnswer;
    if (!Array.isArray(parsed))
      throw new ChainReadError(`the upstream answered a batch with ${parsed.error?.message ?? 'a single answer'}`);
    const byId = new Map(parsed.map((answer) => [answer.id, answer]));
    return calls.map((call, index) => {
      const answer = byId.get(first + index);
      if (!answer) throw new ChainReadError(`no answer to ${call.method}`);
      return answer;
    });
  }

  function traceCall(number: number): { method: string; params: unknown[] } | undefined {
    if (tracing === 'none') return undefined;
    if (tracing === 'debug_traceBlockByNumber') return { method: tracing, params: [hex(number), { tracer: 'callTracer' }] };
    return { method: 'trace_block', params: [hex(number)] };
  }

  async function fetchBundles(from: number, to: number): Promise<BlockBundle[]> {
    const calls: { method: string; params: unknown[] }[] = [];
    const perBlock = traceCall(from) ? 3 : 2;
    for (let number = from; number <= to; number++) {
      calls.push({ method: 'eth_getBlockByNumber', params: [hex(number), true] });
      calls.push({ method: 'eth_getBlockReceipts', params: [hex(number)] });
      const trace = traceCall(number);
      if (trace) calls.push(trace);
    }
    const answers = await batch(calls);
    const bundles: BlockBundle[] = [];
    for (let index = 0; index < answers.length; index += perBlock) {
      const number = from + index / perBlock;
      const [blockAnswer, receiptsAnswer, traceAnswer] = answers.slice(index, index + perBlock);
      const block = required<RawBlock>(blockAnswer, `block ${number}`);
      const receipts = required<RawReceipt[]>(receiptsAnswer, `receipts of block ${number}`);
      bundles.push({ block, receipts, traces: traceAnswer ? tracesFrom(traceAnswer) : undefined });
    }
    return bundles;
  }

  /** The first fetch finds out which tracing method the upstream has; a block fetch never fails because of tracing. */
  function tracesFrom(answer: RpcAnswer): RawTrace[] | undefined {
    if (answer.error) {
      // Only a missing method changes the method; any other error (a busy node) fails this fetch, to be retried.
      if (!missingMethod(answer.error)) throw new ChainReadError(`cannot trace the block: ${answer.error.message}`);
      tracing = tracing === 'unknown' || tracing === 'trace_block' ? 'debug_traceBlockByNumber' : 'none';
      return undefined;
    }
    if (tracing === 'unknown') tracing = 'trace_block';
    if (tracing === 'debug_traceBlockByNumber') return fromCallTracer(answer.result as CallTracerTx[]);
    return answer.result as RawTrace[];
  }

  return {
    async head() {
      const [answer] = await batch([{ method: 'eth_blockNumber', params: [] }]);
      return Number(BigInt(required<Hex>(answer, 'the head block number')));
    },
    async blockHashes(numbers) {
      const answers = await batch(numbers.map((number) => ({ method: 'eth_getBlockByNumber', params: [hex(number), false] })));
      const hashes = new Map<number, string>();
      answers.forEach((answer, index) => {
        const block = answer.result as { hash?: string } | null | undefined;
        if (block?.hash) hashes.set(numbers[index]!, block.hash.toLowerCase());
      });
      return hashes;
    },
    async bundles(from, to) {
      const bundles = await fetchBundles(from, to);
      // Tracing was found missing on this fetch: fetch again, so these blocks get the other method's traces.
      if (bundles.some((bundle) => bundle.traces === undefined) && tracing !== 'none') return fetchBundles(from, to);
      return bundles;
    },
    tracing: () => tracing,
  };
}

function missingMethod(error: { code: number; message: string }): boolean {
  return (
    error.code === -32601 ||
    /not (supported|found|available|enabled)|does not exist|unsupported|unknown method/i.test(error.message)
  );
}

function required<T>(answer: RpcAnswer | undefined, what: string): T {
  if (!answer || answer.error) throw new ChainReadError(`cannot read ${what}: ${answer?.error?.message ?? 'no answer'}`);
  if (answer.result === null || answer.result === undefined)
    throw new ChainReadError(`cannot read ${what}: the node does not have it`);
  return answer.result as T;
}

interface CallFrame {
  type: string;
  from?: Hex;
  to?: Hex;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}
interface CallTracerTx {
  txHash?: Hex;
  result?: CallFrame;
}

/** geth's callTracer tree, flattened into the parity shape `decodeBlock` reads. */
function fromCallTracer(transactions: CallTracerTx[]): RawTrace[] {
  const traces: RawTrace[] = [];
  const walk = (frame: CallFrame, path: number[], txHash: Hex | null) => {
    const type = frame.type.toLowerCase();
    const isCreate = type === 'create' || type === 'create2';
    traces.push({
      type: isCreate ? 'create' : 'call',
      action: {
        callType: isCreate ? undefined : type,
        from: frame.from,
        to: isCreate ? undefined : frame.to,
        value: frame.value,
      },
      result: isCreate ? { address: frame.to } : null,
      traceAddress: path,
      transactionHash: txHash,
      error: frame.error,
    });
    frame.calls?.forEach((child, index) => {
      walk(child, [...path, index], txHash);
    });
  };
  for (const tx of transactions ?? []) if (tx.result) walk(tx.result, [], tx.txHash ?? null);
  return traces;
}
