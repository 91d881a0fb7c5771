import type { Hex } from 'viem';
import { parseHash, parseQuantity } from '../chains/integrity-fields.ts';
import { readNeedOf } from '../chains/read-need.ts';
import {
  type BatchRead,
  BlockUnavailableError,
  ChainReadError,
  type RpcAnswer,
  requiredAnswerVerdict,
  type SendRead,
  sendBatch,
} from './batch-read.ts';
import { type BlockAnswers, bundleBatch, type TracingMethod } from './bundle-batch.ts';
import type { BlockBundle, RawBlock, RawReceipt, RawTrace } from './raw-types.ts';

export interface ChainReader {
  /** The newest block served from the network (the pool's served tip: it never goes back). */
  head(): Promise<number>;
  /**
   * Canonical hashes of these block numbers, each as a node that has the block answers it. A number is
   * absent when no upstream has that block (yet): unknown, which is never a different hash.
   */
  blockHashes(numbers: readonly number[]): Promise<Map<number, string>>;
  /**
   * Blocks `from..to` with receipts (and traces when the upstream has them), in one batched request
   * answered by an upstream that has `to`. Throws `BlockUnavailableError` when none has them yet.
   */
  bundles(from: number, to: number): Promise<BlockBundle[]>;
  /** Which tracing method is in use, once the first bundle was fetched. */
  tracing(): TracingMethod | 'unknown';
}

const hex = (value: number): Hex => `0x${value.toString(16)}`;
const headNeed = readNeedOf('eth_blockNumber', []);

/**
 * Reads blocks for the indexer through `send` (the network's upstream pool) using JSON-RPC batches, each
 * routed to an upstream that has the blocks it names and judged before it is used: an upstream without
 * the block, or with an answer that fails the integrity checks, is passed over for another.
 */
export function createChainReader(options: { send: SendRead; tracing?: TracingMethod }): ChainReader {
  let tracing: TracingMethod | 'unknown' = options.tracing ?? 'unknown';
  let nextId = 1;
  const ids = (count: number) => {
    const first = nextId;
    nextId += count;
    return first;
  };

  async function fetchBundles(from: number, to: number): Promise<BlockBundle[]> {
    const batch = bundleBatch(from, to, tracing, nextId);
    nextId += batch.calls.length;
    const answered = await sendBatch(options.send, batch);
    return answered.blocks.map((answers) => ({
      block: required<RawBlock>(answers.block, `block ${answers.number}`),
      receipts: required<RawReceipt[]>(answers.receipts, `receipts of block ${answers.number}`),
      traces: tracesFrom(answers),
    }));
  }

  /** The first fetch finds out which tracing method the upstream has; a block fetch never fails because of tracing. */
  function tracesFrom({ trace, traces }: BlockAnswers): RawTrace[] | undefined {
    if (trace === undefined) return undefined;
    if (trace.error) {
      // Only a missing method changes the method; any other error (a busy node) fails this fetch, to be retried.
      if (!missingMethod(trace.error)) throw new ChainReadError(`cannot trace the block: ${trace.error.message}`);
      tracing = tracing === 'unknown' || tracing === 'trace_block' ? 'debug_traceBlockByNumber' : 'none';
      return undefined;
    }
    if (tracing === 'unknown') tracing = 'trace_block';
    return traces ?? [];
  }

  return {
    async head() {
      const id = ids(1);
      const text = await options.send(`{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":[]}`, headNeed);
      return Number(BigInt(required<Hex>(JSON.parse(text) as RpcAnswer, 'the head block number')));
    },
    async blockHashes(numbers) {
      if (numbers.length === 0) return new Map();
      return (await sendBatch(options.send, hashBatch(numbers, ids(numbers.length)))).hashes;
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

/** Block hashes by number; a node without one of the blocks is `missing`, one that answers another block `corrupt`. */
function hashBatch(
  numbers: readonly number[],
  firstId: number,
): BatchRead<{ hashes: Map<number, string>; verdict: BatchVerdict }> {
  return {
    calls: numbers.map((number) => ({ method: 'eth_getBlockByNumber', params: [hex(number), false] })),
    firstId,
    highest: Math.max(...numbers),
    oldestState: -1,
    interpret(answers) {
      const hashes = new Map<number, string>();
      let verdict: BatchVerdict;
      answers.forEach((answer, index) => {
        const number = numbers[index]!;
        verdict ??= requiredAnswerVerdict(answer, `block ${number}`);
        const block = answer?.result as { hash?: unknown; number?: unknown } | null | undefined;
        if (block === null || block === undefined) return;
        const hash = parseHash(block.hash);
        if (hash === undefined || parseQuantity(block.number) !== number) {
          verdict ??= {
            kind: 'corrupt',
            detail: `asked for block ${number}, answered ${String(block.number)} (${String(block.hash)})`,
          };
          return;
        }
        hashes.set(number, hash);
      });
      return { hashes, verdict };
    },
    judge: (value) => value.verdict,
  };
}

type BatchVerdict = ReturnType<BatchRead<unknown>['judge']>;

function missingMethod(error: { code: number; message: string }): boolean {
  return (
    error.code === -32601 ||
    /not (supported|found|available|enabled)|does not exist|unsupported|unknown method/i.test(error.message)
  );
}

function required<T>(answer: RpcAnswer | undefined, what: string): T {
  if (!answer || answer.error) throw new ChainReadError(`cannot read ${what}: ${answer?.error?.message ?? 'no answer'}`);
  if (answer.result === null || answer.result === undefined)
    throw new BlockUnavailableError(`cannot read ${what}: no upstream has it yet`);
  return answer.result as T;
}
