import { pino } from 'pino';
import { type Hex, pad } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, startDevnet } from '../../src/chains/devnet.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import type { LogsWording } from '../support/provider-sim/logs-range-cap.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A contract whose every call emits LOG1(topic = caller, data = calldata) (as in get-logs.test.ts). */
const emitterBytecode: Hex = '0x6009600a5f3960095ff3365f5f3733365fa100';
// anvil's first default account, unlocked for eth_sendTransaction.
const funded = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const hex = (value: number): Hex => `0x${value.toString(16)}`;
const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
const rangeBlocks = 100_000;
const cap = 2_000;
const wordings: LogsWording[] = ['alchemy', 'infura', 'quicknode', 'geth', 'ankr', 'generic'];

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return response.text();
}

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const answer = JSON.parse(await post(url, call(method, params))) as { result?: T; error?: { message: string } };
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

/**
 * Issue 32's must-show: a 100,000-block eth_getLogs through providers that take at most 2,000 blocks a
 * call, each refusing in its own words, answers byte for byte what the node itself answers for the
 * whole range. The chain is real: 100,001+ blocks on anvil, logs in blocks spread over the range (two
 * in one block), found by the proxy splitting the range and each provider's refusals teaching the cap.
 */
describe('eth_getLogs over 100,000 blocks through providers capped at 2,000 blocks', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let sims: Map<LogsWording, ProviderSim>;
  let t: TestService;
  let key: string;
  let emitter: string;

  beforeAll(async () => {
    // Shanghai, without history: anvil mines empty blocks at a constant cost (with Cancun's and Prague's
    // system contracts and kept states, each block costs more than the one before: 100,000 would take hours).
    [anvil, database] = await Promise.all([
      startDevnet({ logger: pino({ level: 'silent' }), extraArgs: ['--hardfork', 'shanghai', '--prune-history'] }),
      createTestDatabase(),
    ]);
    emitter = await emitLogsAcrossTheRange(anvil.url);
    sims = new Map(
      await Promise.all(
        wordings.map(
          async (wording) =>
            [
              wording,
              await startProviderSim({ upstream: anvil.url, behaviour: { logsRangeCap: { max: cap, wording } } }),
            ] as const,
        ),
      ),
    );
    t = await startTestService({
      sharing: { anvil, database },
      chains: wordings.map((wording) => ({
        chain: 'ethereum',
        network: wording,
        chain_id: 31337,
        testnet: true,
        block_time_s: 1,
        upstreams: [{ url: sims.get(wording)!.url, name: wording, timeout_ms: 10_000 }],
      })),
    });
    key = (await t.createKey()).key;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await Promise.all([...(sims?.values() ?? [])].map((sim) => sim.close()));
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  it.each(wordings)(
    '%s’s words: byte for byte what anvil answers for the whole range, learnt cap reused',
    async (wording) => {
      const sim = sims.get(wording)!;
      const filter = { address: emitter, fromBlock: '0x1', toBlock: hex(rangeBlocks) };
      const direct = await post(anvil.url, call('eth_getLogs', [filter], 7));
      expect((JSON.parse(direct) as { result: unknown[] }).result.length, 'logs anvil holds in the range').toBe(12);
      const before = sim.calls('eth_getLogs');
      const ours = await post(`${t.url}/v1/rpc/ethereum/${wording}`, call('eth_getLogs', [filter], 7), { 'x-api-key': key });
      expect(ours).toBe(direct);
      const firstCalls = sim.calls('eth_getLogs') - before;
      expect(firstCalls, 'pieces and refusals of the first call').toBeGreaterThanOrEqual(rangeBlocks / cap);

      // Another filter (not a cache hit): the cap is known, so the range goes out in 2,000-block pieces at once.
      const topics = { ...filter, topics: [pad(funded)] };
      const again = await post(`${t.url}/v1/rpc/ethereum/${wording}`, call('eth_getLogs', [topics], 8), { 'x-api-key': key });
      expect(again).toBe(await post(anvil.url, call('eth_getLogs', [topics], 8)));
      const learnt = wording !== 'infura';
      const secondCalls = sim.calls('eth_getLogs') - before - firstCalls;
      // Infura states no range (only "more than 10000 results"): its pieces are found by halving every time.
      if (learnt) expect(secondCalls, 'one call per 2,000 blocks').toBe(rangeBlocks / cap);
      else expect(secondCalls).toBe(firstCalls);
    },
    60_000,
  );
});

/** 12 logs in 11 blocks spread over 100,000 blocks (two in one block, to keep their log index order). */
async function emitLogsAcrossTheRange(url: string): Promise<string> {
  const hash = await result<string>(url, 'eth_sendTransaction', [{ from: funded, data: emitterBytecode }]);
  // anvil may answer the send before it mines: wait for the receipt.
  let receipt: { contractAddress: string } | null = null;
  for (const until = Date.now() + 10_000; receipt === null && Date.now() < until; ) {
    receipt = await result<{ contractAddress: string } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt === null) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (receipt === null) throw new Error('the emitter was never mined');
  const emitter = receipt.contractAddress;
  const emit = (data: string) => result<string>(url, 'eth_sendTransaction', [{ from: funded, to: emitter, data }]);
  for (let i = 1; i <= 10; i++) {
    await emit(pad(hex(i)) as string);
    await result(url, 'anvil_mine', [hex(9_973)]);
  }
  await result(url, 'evm_setAutomine', [false]);
  await emit('0xaa');
  await emit('0xbb');
  await result(url, 'evm_mine');
  await result(url, 'evm_setAutomine', [true]);
  const head = Number(await result<string>(url, 'eth_blockNumber'));
  if (head < rangeBlocks + 1) await result(url, 'anvil_mine', [hex(rangeBlocks + 1 - head)]);
  return emitter;
}
