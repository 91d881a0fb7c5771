// The backfill's baseline: fetching the blocks straight from anvil the way the indexer does (JSON-RPC
// batches of full blocks and their receipts, a few batches in flight), parsing them, storing nothing.

/** keccak256('Transfer(address,address,uint256)'). */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const batchTimeoutMs = 60_000;

export interface RawFetchOptions {
  from: number;
  to: number;
  batchBlocks: number;
  inFlight: number;
  /** Also fetch `trace_block` per block, as the indexer does on anvil. */
  traces: boolean;
}

export interface RawFetchResult {
  blocks: number;
  /** ERC-20 Transfer logs (three topics) in the receipts. */
  tokenTransfers: number;
  megabytes: number;
  ms: number;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: { message?: string };
}

interface Receipt {
  logs: { topics: string[] }[];
}

export async function fetchBlocksRaw(url: string, options: RawFetchOptions): Promise<RawFetchResult> {
  const ranges: [number, number][] = [];
  for (let start = options.from; start <= options.to; start += options.batchBlocks) {
    ranges.push([start, Math.min(options.to, start + options.batchBlocks - 1)]);
  }
  let next = 0;
  let tokenTransfers = 0;
  let bytes = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < ranges.length) {
      const [from, to] = ranges[next++]!;
      const fetched = await fetchRange(url, from, to, options.traces);
      tokenTransfers += fetched.tokenTransfers;
      bytes += fetched.bytes;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.inFlight, ranges.length) }, worker));
  return {
    blocks: options.to - options.from + 1,
    tokenTransfers,
    megabytes: bytes / 2 ** 20,
    ms: performance.now() - started,
  };
}

async function fetchRange(url: string, from: number, to: number, traces: boolean) {
  const calls: object[] = [];
  for (let number = from; number <= to; number++) {
    const hex = `0x${number.toString(16)}`;
    calls.push({ jsonrpc: '2.0', id: calls.length, method: 'eth_getBlockByNumber', params: [hex, true] });
    calls.push({ jsonrpc: '2.0', id: calls.length, method: 'eth_getBlockReceipts', params: [hex] });
    if (traces) calls.push({ jsonrpc: '2.0', id: calls.length, method: 'trace_block', params: [hex] });
  }
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls),
    signal: AbortSignal.timeout(batchTimeoutMs),
  });
  const text = await response.text();
  const answers = JSON.parse(text) as Answer[];
  if (response.status !== 200 || !Array.isArray(answers) || answers.length !== calls.length) {
    throw new Error(`anvil answered blocks ${from}-${to} with ${response.status} ${text.slice(0, 200)}`);
  }
  let tokenTransfers = 0;
  for (const answer of answers) {
    if (answer.error || answer.result === null || answer.result === undefined) {
      throw new Error(`anvil answered call ${answer.id} for blocks ${from}-${to} with ${answer.error?.message ?? 'nothing'}`);
    }
    if (!Array.isArray(answer.result)) continue;
    // Receipts are the arrays whose items have logs (trace_block answers arrays too).
    for (const receipt of answer.result as Partial<Receipt>[]) {
      for (const log of receipt.logs ?? []) if (log.topics.length === 3 && log.topics[0] === transferTopic) tokenTransfers++;
    }
  }
  return { tokenTransfers, bytes: Buffer.byteLength(text) };
}
