import { formatRpcAnswer, skipValue } from '../jsonrpc/raw-answer.ts';
import { splitBatchAnswer } from './batch-answer.ts';
import type { UpstreamClient } from './upstream-client.ts';

/**
 * Quick point lookups: batching them costs no call a noticeable wait. Heavy methods (eth_call,
 * eth_getLogs, traces) go alone, so a slow one never holds up the answers batched with it.
 */
const batchableMethods = new Set([
  'eth_blockNumber',
  'eth_chainId',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'eth_syncing',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
]);

/** Bodies longer than this are not looked into: point lookups are short. */
const maxBatchableBodyLength = 1024;

interface Queued {
  readonly body: string;
  readonly method: string;
  /** The call's params as JSON text ('' when it has none), copied into the batch as they came. */
  readonly paramsJson: string;
  /** The caller's id, as JSON text, put back into its answer. */
  readonly idJson: string;
  resolve(text: string): void;
  reject(error: unknown): void;
}

/**
 * Sends the quick calls that arrive in the same event-loop turn to the node as JSON-RPC batches of at
 * most `maxSize` (one HTTP exchange for several calls), spread so that `spread` exchanges are under way
 * when there are enough calls (see `batchSizeFor`), and hands each caller its own answer with its own
 * id, the `result` or `error` text exactly as the node sent it. A lone call goes as it came. A failed
 * exchange fails every call in it, each of which the pool may retry elsewhere; a node that answers a
 * batch with anything but an array of answers gets single calls from then on.
 */
export function createBatchingClient(
  inner: UpstreamClient,
  options: {
    maxSize: number;
    /** Exchanges a turn's calls are spread over while fewer are under way; default 1 (one batch up to `maxSize`). */
    spread?: number;
    onBatch?: (size: number) => void;
  },
): UpstreamClient {
  const { maxSize, spread = 1, onBatch } = options;
  let queue: Queued[] = [];
  let scheduled = false;
  let batchesWork = true;
  /** Exchanges under way: while there are none, a call goes at the end of the current task, not a loop turn later. */
  let inFlight = 0;
  const exchange = (body: string) => {
    inFlight += 1;
    return inner.send(body).finally(() => {
      inFlight -= 1;
    });
  };

  const flush = () => {
    scheduled = false;
    const calls = queue;
    queue = [];
    const size = batchSizeFor(calls.length, maxSize, spread - inFlight);
    for (let start = 0; start < calls.length; start += size) send(calls.slice(start, start + size));
  };

  const sendAlone = (call: Queued) => exchange(call.body).then(call.resolve, call.reject);

  const send = (calls: Queued[]) => {
    if (calls.length === 1 || !batchesWork) {
      for (const call of calls) void sendAlone(call);
      return;
    }
    const body = `[${calls.map(batchElement).join(',')}]`;
    onBatch?.(calls.length);
    exchange(body).then(
      (text) => {
        const answers = splitBatchAnswer(text);
        if (answers === undefined) batchesWork = false;
        calls.forEach((call, index) => {
          const answer = answers?.get(index);
          if (answer === undefined) void sendAlone(call);
          else call.resolve(formatRpcAnswer(call.idJson, answer));
        });
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  };

  return {
    url: inner.url,
    send(body) {
      const call = body.length <= maxBatchableBodyLength ? batchableCall(body) : undefined;
      if (call === undefined) return inner.send(body);
      return new Promise<string>((resolve, reject) => {
        queue.push({ body, method: call.method, paramsJson: call.paramsJson, idJson: call.idJson, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          // Idle (a lone client): the calls made in this task go together as soon as it ends. Busy: those of
          // the whole event-loop turn, which under load is when many answers and requests arrive.
          if (inFlight === 0) queueMicrotask(flush);
          else setImmediate(flush);
        }
      });
    },
    close: () => inner.close(),
  };
}

/**
 * How many calls go in each batch of a flush: at most `maxSize`, and spread over `exchanges` (those
 * that would keep `spread` under way) when there are that many calls. A node answers a batch's calls
 * one after the other (anvil runs them in one task, geth in one goroutine), so a single large batch
 * leaves the node's other cores idle and the proxy waiting for the slowest call; a node already busy
 * with enough exchanges gets the flush as few batches as `maxSize` allows.
 */
export function batchSizeFor(count: number, maxSize: number, exchanges: number): number {
  return Math.max(1, Math.min(maxSize, Math.ceil(count / Math.max(1, exchanges))));
}

/** The call as the batch's element `index` (its answer comes back with that id); params only if it had them. */
function batchElement(call: Queued, index: number): string {
  const params = call.paramsJson === '' ? '' : `,"params":${call.paramsJson}`;
  return `{"jsonrpc":"2.0","id":${index},"method":"${call.method}"${params}}`;
}

type BatchableCall = Pick<Queued, 'method' | 'paramsJson' | 'idJson'>;

/** A single call (not a batch, not a notification, no extra members) of a batchable method, or `undefined`. */
function batchableCall(body: string): BatchableCall | undefined {
  return callInProxyLayout(body) ?? parsedBatchableCall(body);
}

const layoutHead = '{"jsonrpc":"2.0","id":';

/**
 * The call read without parsing when it is in the layout the proxy writes (`formatCall`:
 * `{"jsonrpc":"2.0","id":…,"method":"…","params":…}`), the usual case: the params text is taken as it
 * is, which spares a JSON.parse and a JSON.stringify per call. Anything else is left to the parser.
 */
function callInProxyLayout(body: string): BatchableCall | undefined {
  if (!body.startsWith(layoutHead) || !body.endsWith('}')) return undefined;
  const idStart = layoutHead.length;
  const idEnd = skipValue(body, idStart);
  const idJson = body.slice(idStart, idEnd);
  if (!(idJson.startsWith('"') || /^-?\d{1,15}$/.test(idJson))) return undefined;
  if (!body.startsWith(',"method":"', idEnd)) return undefined;
  const methodStart = idEnd + 11;
  const methodEnd = body.indexOf('"', methodStart);
  const method = body.slice(methodStart, methodEnd);
  if (methodEnd < 0 || !batchableMethods.has(method)) return undefined;
  if (methodEnd + 2 === body.length) return { method, paramsJson: '', idJson };
  if (!body.startsWith(',"params":', methodEnd + 1)) return undefined;
  const paramsStart = methodEnd + 11;
  const first = body[paramsStart];
  if ((first !== '[' && first !== '{') || skipValue(body, paramsStart) !== body.length - 1) return undefined;
  return { method, paramsJson: body.slice(paramsStart, -1), idJson };
}

function parsedBatchableCall(body: string): BatchableCall | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || parsed.jsonrpc !== '2.0') return undefined;
  const { method, id, params } = parsed;
  if (typeof method !== 'string' || !batchableMethods.has(method)) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (Object.keys(parsed).length !== (params === undefined ? 3 : 4)) return undefined;
  return { method, paramsJson: params === undefined ? '' : JSON.stringify(params), idJson: JSON.stringify(id) };
}
