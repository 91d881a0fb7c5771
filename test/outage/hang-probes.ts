import { answerDeadlineMs } from './probes.ts';

/** The keys and addresses the requests of a hang are made with. */
export interface HangTarget {
  readonly url: string;
  /** A free-plan key: its JSON-RPC calls go through the Redis rate limiter. */
  readonly freeKey: string;
  /** A growth-plan key for the REST calls (also rate limited; 100 requests a second leave room for the probes). */
  readonly restKey: string;
  /** A key never used before this hang: its lookup must reach the database (no key cache entry). */
  readonly unseenKey: string;
}

export interface HangAnswer {
  readonly name: string;
  readonly ms: number;
  /** 0: no answer within the fetch's own limit, or the connection failed. */
  readonly status: number;
  readonly retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  readonly body: any;
}

const holder = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
let roundCounter = 0;

function requests(target: HangTarget) {
  const json = { 'content-type': 'application/json' };
  // A holder never asked before: its balances are read from the chain, not from an answer cache.
  const freshHolder = `0x${(0xbeef0000 + ++roundCounter).toString(16).padStart(40, '0')}`;
  return [
    { name: 'livez', path: '/livez', init: {} },
    {
      name: 'json-rpc (free plan)',
      path: '/v1/rpc/ethereum/devnet',
      init: {
        method: 'POST',
        headers: { ...json, 'x-api-key': target.freeKey },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      },
    },
    { name: 'GET /v1/webhooks', path: '/v1/webhooks', init: { headers: { 'x-api-key': target.restKey } } },
    {
      name: 'POST /v1/webhooks',
      path: '/v1/webhooks',
      init: {
        method: 'POST',
        headers: { ...json, 'x-api-key': target.restKey },
        body: JSON.stringify({
          url: 'http://127.0.0.1:9/hooks',
          chain: 'ethereum',
          network: 'devnet',
          event_type: 'address_activity',
          config: { addresses: [holder] },
        }),
      },
    },
    { name: 'unseen key', path: '/v1/webhooks', init: { headers: { 'x-api-key': target.unseenKey } } },
    {
      name: 'token balances',
      path: `/v1/tokens/ethereum/balances/${freshHolder}?network=devnet`,
      init: { headers: { 'x-api-key': target.restKey } },
    },
    // An address never asked about: its code is read from the chain (404 once it shows none).
    {
      name: 'token metadata (reads the chain)',
      path: `/v1/tokens/ethereum/metadata/${freshHolder}?network=devnet`,
      init: { headers: { 'x-api-key': target.restKey } },
    },
    {
      name: 'gas prices (reads the chain)',
      path: '/v1/gas/ethereum/prices?network=devnet',
      init: { headers: { 'x-api-key': target.restKey } },
    },
  ];
}

/** Every request of the set at once, each timed; `burst` more JSON-RPC calls of the growth key beside them (load). */
export async function askAll(target: HangTarget, burst = 0): Promise<HangAnswer[]> {
  const load = Array.from({ length: burst }, (_, i) => ({
    name: 'json-rpc (load)',
    path: '/v1/rpc/ethereum/devnet',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': target.restKey },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] }),
    },
  }));
  return Promise.all(
    [...requests(target), ...load].map(async ({ name, path, init }) => {
      const started = performance.now();
      try {
        const response = await fetch(`${target.url}${path}`, {
          ...init,
          // Past the deadline: a slow answer is reported with its time rather than as a hang.
          signal: AbortSignal.timeout(answerDeadlineMs + 10_000),
        });
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        const ms = performance.now() - started;
        return { name, ms, status: response.status, retryAfter: response.headers.get('retry-after'), body };
      } catch (error) {
        return { name, ms: performance.now() - started, status: 0, retryAfter: null, body: (error as Error).message };
      }
    }),
  );
}

/** 200 or 201, 429 for the load, or the 404 of a token metadata read for an address without code (it was read from the chain). */
function answeredNormally(answer: HangAnswer): boolean {
  if (answer.status === 200 || answer.status === 201) return true;
  // The load is more than the growth plan's 100 requests a second: some of it is refused, at once.
  if (answer.name === 'json-rpc (load)') return answer.status === 429 && answer.retryAfter !== null;
  return answer.name.startsWith('token metadata') && answer.status === 404 && answer.body?.error?.code === 'not_found';
}

/** Why an answer during a hang is not acceptable (within 2 s: the data, or a 503 the client can retry), or undefined. */
export function hangProblem(answer: HangAnswer): string | undefined {
  const where = `${answer.name}: ${answer.status} in ${Math.round(answer.ms)} ms ${JSON.stringify(answer.body)?.slice(0, 200)}`;
  if (answer.status === 0) return `${where}: no answer`;
  if (answer.ms > answerDeadlineMs) return `${where}: slower than ${answerDeadlineMs} ms`;
  if (answer.name === 'livez') return answer.status === 200 && answer.body?.status === 'ok' ? undefined : where;
  if (answer.status === 503) {
    const error = answer.body?.error;
    if (error?.code !== 'service_unavailable' || error?.status !== 503 || typeof error?.message !== 'string')
      return `${where}: not the spec's error object`;
    return answer.retryAfter ? undefined : `${where}: no Retry-After`;
  }
  if (!answeredNormally(answer)) return `${where}: neither the data nor 503`;
  const rpcError = answer.name.startsWith('json-rpc') && answer.status === 200 ? answer.body?.error : undefined;
  if (rpcError && rpcError.code !== -32603) return `${where}: a JSON-RPC error other than -32603`;
  return undefined;
}

/** Why an answer is not the normal one, or undefined. */
export function normalProblem(answer: HangAnswer): string | undefined {
  const where = `${answer.name}: ${answer.status} in ${Math.round(answer.ms)} ms ${JSON.stringify(answer.body)?.slice(0, 200)}`;
  if (!answeredNormally(answer)) return where;
  if (answer.name.startsWith('json-rpc') && answer.body?.result === undefined) return where;
  return undefined;
}

/**
 * Asks the set every ~300 ms for `durationMs` and returns every problem seen (all rounds, so that the
 * report shows each slow request, not only the first). The test then expects none.
 */
export async function problemsDuring(target: () => HangTarget, durationMs: number, burst = 0): Promise<string[]> {
  const problems: string[] = [];
  const answers: HangAnswer[] = [];
  const deadline = Date.now() + durationMs;
  while (Date.now() < deadline) {
    const round = await askAll(target(), burst);
    answers.push(...round);
    problems.push(...round.map(hangProblem).filter((problem) => problem !== undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  if (process.env.HANG_SUMMARY) console.log(summarize(answers));
  return problems;
}

/** Waits (at most `withinMs`) until every request of the set answers normally. */
export async function normalWithin(target: () => HangTarget, withinMs: number): Promise<number> {
  const started = Date.now();
  let last: string[] = [];
  while (Date.now() - started < withinMs) {
    last = (await askAll(target())).map(normalProblem).filter((problem) => problem !== undefined);
    if (last.length === 0) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not back to normal within ${withinMs} ms of the dependency's return: ${last.join('; ')}`);
}

/** Per request: how many answers of each status, and the slowest. */
export function summarize(answers: readonly HangAnswer[]): string {
  const byName = new Map<string, { statuses: Map<number, number>; slowest: number }>();
  for (const answer of answers) {
    const entry = byName.get(answer.name) ?? { statuses: new Map(), slowest: 0 };
    entry.statuses.set(answer.status, (entry.statuses.get(answer.status) ?? 0) + 1);
    entry.slowest = Math.max(entry.slowest, answer.ms);
    byName.set(answer.name, entry);
  }
  return [...byName]
    .map(
      ([name, { statuses, slowest }]) =>
        `${name}: ${[...statuses].map(([status, n]) => `${n}x${status}`).join(' ')}, slowest ${Math.round(slowest)} ms`,
    )
    .join('\n');
}
