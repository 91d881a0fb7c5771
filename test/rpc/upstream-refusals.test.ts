import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { answeringChainId, forwardTo, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { sumOf } from './cache-setup.ts';

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const network = (name: string, upstreams: Record<string, unknown>[]) => ({
  chain: 'ethereum',
  network: name,
  chain_id: 31337,
  testnet: true,
  block_time_s: 1,
  upstreams: upstreams.map((upstream) => ({ timeout_ms: 5_000, batch_max_size: 1, ...upstream })),
});

interface Answer {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { retry_after_s?: number } };
}

/**
 * How the pool's refusals reach a client: every upstream out of budget is a 429 with Retry-After (a
 * call of a batch: -32005 with the same words), one limited upstream is no error at all, a method no
 * upstream serves is -32601, and an answer that fails its integrity check is never passed on or cached.
 */
describe('upstream refusals, through the service', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let sims: Record<'limitedA' | 'limitedB' | 'limitedC' | 'slowHonest', ProviderSim>;
  let liar: TestRpcServer;
  let t: TestService;
  let key: string;

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    const limited = { rateLimit: { rps: 1, style: 'http', retryAfterS: 3 } } as const;
    const [limitedA, limitedB, limitedC, slowHonest] = await Promise.all([
      startProviderSim({ upstream: anvil.url, behaviour: limited }),
      startProviderSim({ upstream: anvil.url, behaviour: { rateLimit: { rps: 1, style: 'jsonrpc' } } }),
      startProviderSim({ upstream: anvil.url, behaviour: { rateLimit: { rps: 5, style: 'http', retryAfterS: 1 } } }),
      startProviderSim({ upstream: anvil.url, behaviour: { latencyMs: 30 } }),
    ]);
    sims = { limitedA, limitedB, limitedC, slowHonest };
    // A node that answers eth_getBlockByNumber with the block after the one asked: a broken index or proxy.
    liar = await startRpcServer(
      answeringChainId(31337, async (body, method) => {
        if (method !== 'eth_getBlockByNumber') return forwardTo(anvil.url)(body);
        const asked = JSON.parse(body) as { id: unknown; params: [string, boolean] };
        const next = /^0x[0-9a-f]+$/.test(asked.params[0]) ? `0x${(Number(asked.params[0]) + 1).toString(16)}` : asked.params[0];
        return forwardTo(anvil.url)(JSON.stringify({ ...asked, params: [next, asked.params[1]] }));
      }),
    );
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call('anvil_mine', ['0x5'])),
    });
    t = await startTestService({
      sharing: { anvil, database },
      chains: [
        network('devnet', [
          { url: limitedA.url, name: 'limited-a' },
          { url: limitedB.url, name: 'limited-b' },
        ]),
        // The limited one is the faster: it gets the calls until its 429s send them to the other.
        network('sepolia', [
          { url: limitedC.url, name: 'limited-c' },
          { url: slowHonest.url, name: 'slow-honest' },
        ]),
        network('holesky', [{ url: anvil.url, methods: { deny: ['eth_getProof', 'trace_*'] } }]),
        // The honest one is a fallback: the liar is asked first, whatever the latencies on a busy machine.
        network('hoodi', [
          { url: liar.url, name: 'liar' },
          { url: slowHonest.url, name: 'slow-honest', tier: 'fallback' },
        ]),
        network('mainnet', [{ url: liar.url, name: 'liar-alone' }]),
      ],
    });
    key = (await t.createKey()).key;
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([...Object.values(sims ?? {}).map((sim) => sim.close()), liar?.close()]);
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  const send = (name: string, body: unknown) => t.rpc(key, body, `/v1/rpc/ethereum/${name}`);

  it('every upstream out of budget: a single call is HTTP 429 rate_limited with Retry-After; in a batch, -32005 with the same words', async () => {
    // Spend both budgets: each upstream answers 429 (Infura's HTTP form, Alchemy's JSON-RPC form) and backs off.
    let limited: Response | undefined;
    for (let i = 0; i < 20 && limited === undefined; i++) {
      const response = await send('devnet', call('eth_getBalance', [address(i + 1), 'latest']));
      if (response.status === 429) limited = response;
      else await response.text();
    }
    expect(limited, 'a 429 within 20 calls').toBeDefined();
    const retryAfter = limited!.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[1-9]\d*$/);
    const body = (await limited!.json()) as { error: { code: string; message: string; status: number } };
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.status).toBe(429);
    expect(body.error.message).toMatch(/^every upstream of ethereum\/devnet is out of its request budget; retry after \d+ s$/);

    // The Alchemy-style upstream backs off only 1 s after its 429: on a busy machine that can pass before
    // the batch is sent, so batches are sent (bounded) until one finds both upstreams out of budget again.
    let answers: Answer[] = [];
    for (let i = 0; i < 20 && (answers.length === 0 || !answers.every((answer) => answer.error?.code === -32005)); i++) {
      const batch = await send('devnet', [
        call('eth_getBalance', [address(100 + 2 * i), 'latest'], 1),
        call('eth_getBalance', [address(101 + 2 * i), 'latest'], 2),
      ]);
      expect(batch.status).toBe(200);
      answers = (await batch.json()) as Answer[];
    }
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.error?.code).toBe(-32005);
      expect(answer.error?.message).toMatch(
        /^every upstream of ethereum\/devnet is out of its request budget; retry after \d+ s$/,
      );
      expect(answer.error?.data?.retry_after_s).toBeGreaterThanOrEqual(1);
    }
  });

  it('one upstream out of budget: clients see no error, the other serves', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const response = await send('sepolia', call('eth_getBalance', [address(1_000 + i), 'latest'], i));
        return { status: response.status, body: (await response.json()) as Answer };
      }),
    );
    expect(answers.filter((answer) => answer.status !== 200 || answer.body.error !== undefined)).toEqual([]);
    expect(sims.limitedC.refused(), 'the limited upstream did refuse some').toBeGreaterThan(0);
  });

  it('a method no upstream serves: -32601 naming the network and the method', async () => {
    const answer = (await (await send('holesky', call('eth_getProof', [address(1), [], 'latest'], 5))).json()) as Answer;
    expect(answer.error).toEqual({ code: -32601, message: "no upstream of ethereum/holesky serves the method 'eth_getProof'" });
    const other = (await (await send('holesky', call('eth_getBalance', [address(1), 'latest'], 6))).json()) as Answer;
    expect(other.result).toBeDefined();
  });

  it('an answer failing its integrity check is asked again elsewhere, its upstream marked, never cached', async () => {
    for (const block of ['0x2', '0x3']) {
      const body = call('eth_getBlockByNumber', [block, false], 9);
      const answer = (await (await send('hoodi', body)).json()) as Answer;
      expect((answer.result as { number: string }).number).toBe(block);
    }
    const askedTheLiar = liar.seen.filter((seen) => /"eth_getBlockByNumber","params":\["0x[23]"/.test(seen.body)).length;
    expect(askedTheLiar, 'the liar was asked for blocks 2 and 3').toBeGreaterThan(0);
    const metrics = await t.service.ctx.metrics.registry.getSingleMetricAsString('blockyard_upstream_integrity_failures_total');
    expect(sumOf(metrics, 'upstream="liar"')).toBeGreaterThan(0);

    // The liar alone: no answer to give, and nothing stored (the same call reaches it again).
    const body = call('eth_getBlockByNumber', ['0x4', false], 10);
    // The head watch's own polls (at latest) reach the liar too: only calls for block 4 are counted.
    const askedFor4 = () => liar.seen.filter((seen) => seen.body.includes('"params":["0x4"')).length;
    for (let i = 0; i < 2; i++) {
      const before = askedFor4();
      const answer = (await (await send('mainnet', body)).json()) as Answer;
      expect(answer.error).toEqual({ code: -32603, message: 'upstream unavailable (integrity); retry with exponential backoff' });
      expect(askedFor4() - before).toBe(1);
    }
  });
});
