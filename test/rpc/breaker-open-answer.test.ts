import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freeze } from '../support/freeze.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../ws/support/ws-client.ts';

interface Answer {
  error?: { code: number; message: string; data?: { retry_after_s?: number } };
  result?: unknown;
}

/**
 * While the breaker of a network's only upstream is open, a call's answer says so, naming the network
 * and when the upstream is tried again; it used to repeat the failure that opened it ("timeout").
 */
describe('a call while the upstream circuit breaker is open (issue 35, item 8)', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let t: TestService;
  let key: string;
  let stopped = false;
  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    t = await startTestService({
      sharing: { anvil, database },
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          block_time_s: 1,
          upstreams: [{ url: anvil.url, timeout_ms: 1_000 }],
        },
      ],
    });
    key = (await t.createKey()).key;
  });
  afterAll(async () => {
    if (stopped) process.kill(anvil.pid, 'SIGCONT');
    await t?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  const balance = async (): Promise<Answer> =>
    (await (
      await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [`0x${'12'.repeat(20)}`, 'latest'] })
    ).json()) as Answer;

  it('answers -32603 saying the breaker of ethereum/devnet is open and when it is tried again, with data.retry_after_s', async () => {
    expect((await balance()).result).toBeDefined();
    // Stopped: connections accepted, nothing answered; the head poll times out and opens the breaker.
    freeze(anvil.pid);
    stopped = true;
    const answer = await eventually(async () => {
      const got = await balance();
      return got.error?.message.includes('circuit breaker') ? got : undefined;
    }, 15_000);
    expect(answer.error!.code).toBe(-32603);
    expect(answer.error!.message).toMatch(
      /^upstream unavailable: the circuit breaker of the only upstream of ethereum\/devnet is open after repeated failures \(last: timeout\); it is tried again in [1-5] s; retry with exponential backoff$/,
    );
    expect(answer.error!.data!.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(answer.error!.data!.retry_after_s).toBeLessThanOrEqual(5);
    process.kill(anvil.pid, 'SIGCONT');
    stopped = false;
    await eventually(async () => ((await balance()).result === undefined ? undefined : true), 20_000);
  }, 60_000);
});
