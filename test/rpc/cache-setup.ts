import { setTimeout as sleep } from 'node:timers/promises';
import { forwardTo, methodsOf, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A Blockyard whose networks reach anvil through a local counting server (which may delay or refuse calls). */
export interface CachedRpcFixture {
  readonly t: TestService;
  readonly key: string;
  readonly upstream: TestRpcServer;
  /** Milliseconds the upstream waits before answering a method. */
  readonly delays: Map<string, number>;
  /** eth_getLogs wider than this many blocks is refused with "range too large". */
  refuseLogsWiderThan: number | undefined;
  /** POSTs through Blockyard (`/v1/rpc/ethereum/{network}`) and returns the answer's text. */
  viaBlockyard(body: unknown, network?: string): Promise<string>;
  /** POSTs to anvil directly. */
  viaAnvil(body: unknown): Promise<string>;
  /** Upstream requests whose body contains `text`. */
  upstreamCount(text: string): number;
  /** A metric's value as Prometheus text (all its series). */
  metric(name: string): Promise<string>;
  /**
   * Until the service's served tip of ethereum/devnet has reached the node's head (its pool's head poll
   * runs once a block: 1 s below), which drops the cache's head-dependent entries and makes older blocks
   * final: what a test waits for after mining. Bounded at 10 s.
   */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export const rpcCall = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

export async function startCachedRpc(options: { redisUrl?: string; sharing?: CachedRpcFixture } = {}): Promise<CachedRpcFixture> {
  let resolveTarget: (url: string) => void = () => undefined;
  const target = new Promise<string>((resolve) => {
    resolveTarget = resolve;
  });
  const delays = new Map<string, number>();
  const fixture = { refuseLogsWiderThan: undefined as number | undefined };
  const upstream = await startRpcServer(async (body) => {
    const url = await target;
    const delay = Math.max(0, ...methodsOf(body).map((method) => delays.get(method) ?? 0));
    if (delay) await sleep(delay);
    const maxBlocks = fixture.refuseLogsWiderThan;
    if (maxBlocks === undefined || !methodsOf(body).includes('eth_getLogs')) return forwardTo(url)(body);
    if (!body.trimStart().startsWith('[')) return refusal(body, maxBlocks) ?? forwardTo(url)(body);
    // A batch (an eth_getLogs near the tip goes with a head witness): each call answered as alone.
    const answers = await Promise.all(
      (JSON.parse(body) as unknown[]).map(async (call) => {
        const single = JSON.stringify(call);
        return JSON.parse((refusal(single, maxBlocks) ?? (await forwardTo(url)(single))).body) as unknown;
      }),
    );
    return { body: JSON.stringify(answers) };
  });
  const network = (name: string, extra: Record<string, unknown> = {}) => ({
    chain: 'ethereum',
    network: name,
    chain_id: 31337,
    testnet: true,
    dev_methods: true,
    // Final two blocks below the head, as the embedded devnet: anvil's own tags (head - 64) would leave
    // nothing final in these short chains.
    finality: 'depth',
    finality_depth: 2,
    block_time_s: 1,
    // One call per upstream request: the cache tests count what reaches the node by the caller's id
    // and params, and a batch renumbers ids (batching has its own tests in test/chains).
    upstreams: [{ url: upstream.url, batch_max_size: 1 }],
    ...extra,
  });
  const t = await startTestService({
    redisUrl: options.redisUrl,
    sharing: options.sharing?.t,
    chains: [network('devnet'), network('sepolia', { get_logs_max_range: 4 })],
  });
  resolveTarget(t.anvil.url);
  const { key } = await t.createKey();
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return response.text();
  };
  return Object.assign(fixture, {
    t,
    key,
    upstream,
    delays,
    viaBlockyard: (body: unknown, name = 'devnet') => post(`${t.url}/v1/rpc/ethereum/${name}`, body, { 'x-api-key': key }),
    viaAnvil: (body: unknown) => post(t.anvil.url, body),
    // The pool's stall probe (an eth_chainId sent when a call waits long on a busy machine) is not a
    // client's call: left out of the counts.
    upstreamCount: (text: string) =>
      upstream.seen.filter((seen) => seen.body.includes(text) && !seen.body.includes('"id":"stall-probe"')).length,
    metric: async (name: string) =>
      (await t.service.ctx.metrics.registry.getSingleMetricAsString(name))
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n'),
    async settle() {
      const head = Number.parseInt(JSON.parse(await post(t.anvil.url, rpcCall('eth_blockNumber'))).result, 16);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { body } = await t.admin('GET', '/admin/chains');
        const devnet = body.networks.find((n: { network: string }) => n.network === 'devnet');
        if (devnet.served_tip >= head) return;
        if (Date.now() > deadline)
          throw new Error(`served tip ${devnet.served_tip} did not reach the node's head ${head} in 10 s`);
        await sleep(50);
      }
    },
    async stop() {
      await t.stop();
      await upstream.close();
    },
  });
}

/** The sum of a counter's series whose labels contain `labels`. */
export function sumOf(metricText: string, labels = ''): number {
  return metricText
    .split('\n')
    .filter((line) => line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1) ?? 0), 0);
}

function refusal(body: string, maxBlocks: number) {
  const call = JSON.parse(body) as { id?: unknown; method?: string; params: [{ fromBlock?: string; toBlock?: string }] };
  if (call.method !== 'eth_getLogs') return undefined;
  const filter = call.params[0];
  const from = Number.parseInt(filter.fromBlock ?? '0x0', 16);
  const to = Number.parseInt(filter.toBlock ?? '0x0', 16);
  if (Number.isNaN(from) || Number.isNaN(to) || to - from + 1 <= maxBlocks) return undefined;
  const id = call.id ?? null;
  // -32000 as geth numbers it: Infura's -32005 reads as a rate limit to the pool, which then retries it.
  const error = { code: -32000, message: `block range too large: at most ${maxBlocks} blocks per call` };
  return { body: JSON.stringify({ jsonrpc: '2.0', id, error }) };
}
