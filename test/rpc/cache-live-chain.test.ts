import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';

// anvil's first default account: a well-known development key, funded on every anvil.
const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;
const readers = 20;
const loadMs = 4_000;

interface Read {
  startedAt: number;
  endedAt: number;
  value: bigint;
}

/**
 * The proxy against a chain that mines a block every second, as the embedded devnet does, under 20
 * concurrent readers: calls are batched to the node (spread over several exchanges) and `latest`
 * answers are cached until the head moves, so every answer must still be its own call's and never
 * older than one already given.
 */
describe('JSON-RPC at latest on a live chain (a block every second)', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let t: TestService;
  let key: string;
  const rpc = async (method: string, params: unknown[], id: number): Promise<string> => {
    const response = await t.rpc(key, { jsonrpc: '2.0', id, method, params });
    const answer = (await response.json()) as { id: unknown; result?: string; error?: unknown };
    if (response.status !== 200 || typeof answer.result !== 'string' || answer.id !== id) {
      throw new Error(`${method} answered ${response.status} ${JSON.stringify(answer)}`);
    }
    return answer.result;
  };
  const direct = async (method: string, params: unknown[]): Promise<string> => {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return ((await response.json()) as { result: string }).result;
  };

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil({ blockTimeS: 1 }), createTestDatabase()]);
    t = await startTestService({
      sharing: { anvil, database },
      chains: [devnetChain(anvil.url, { block_time_s: 1, finality_depth: 2 })],
    });
    ({ key } = await t.createKey());
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  it('gives each caller its own answer and never an older balance or block than one already answered', async () => {
    // Addresses with balances of their own (set at once, no block needed), and one paid every block.
    const owned = Array.from({ length: 8 }, (_, i) => ({ address: randomAddress(), balance: BigInt(1_000 + i) }));
    for (const { address, balance } of owned) await direct('anvil_setBalance', [address, `0x${balance.toString(16)}`]);
    const payee = randomAddress() as `0x${string}`;
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(anvil.url) });

    const until = Date.now() + loadMs;
    const payeeReads: Read[] = [];
    const heightReads: Read[] = [];
    const wrong: string[] = [];
    let payments = 0;
    let lastPayment = '';
    const pay = async () => {
      while (Date.now() < until) {
        lastPayment = await wallet.sendTransaction({ to: payee, value: 1n });
        payments++;
        await sleep(300);
      }
    };
    const read = async (reader: number) => {
      for (let round = 0; Date.now() < until; round++) {
        const id = reader * 100_000 + round;
        const startedAt = performance.now();
        if (round % 4 === 0) {
          const value = BigInt(await rpc('eth_getBalance', [payee, 'latest'], id));
          payeeReads.push({ startedAt, endedAt: performance.now(), value });
        } else if (round % 4 === 1) {
          const value = BigInt(await rpc('eth_blockNumber', [], id));
          heightReads.push({ startedAt, endedAt: performance.now(), value });
        } else if (round % 4 === 2) {
          const { address, balance } = owned[(reader + round) % owned.length]!;
          const value = BigInt(await rpc('eth_getBalance', [address, 'latest'], id));
          if (value !== balance) wrong.push(`${address}: ${value} instead of ${balance}`);
        } else {
          const value = await rpc('eth_getBalance', [randomAddress(), 'latest'], id);
          if (value !== '0x0') wrong.push(`a fresh address: ${value} instead of 0x0`);
        }
      }
    };
    const startHeight = BigInt(await direct('eth_blockNumber', []));
    await Promise.all([pay(), ...Array.from({ length: readers }, (_, reader) => read(reader))]);

    expect(wrong).toEqual([]);
    // The chain did move during the load: the payee's balance and the height went up through the proxy.
    expect(BigInt(await direct('eth_blockNumber', [])) - startHeight).toBeGreaterThanOrEqual(3n);
    expect(payments).toBeGreaterThanOrEqual(3);
    for (const reads of [payeeReads, heightReads]) {
      expect(new Set(reads.map((r) => r.value)).size).toBeGreaterThanOrEqual(3);
      expect(olderAfterNewer(reads)).toEqual([]);
    }

    // Once the payments stop (the last one mined), the next head evicts what was cached: the proxy answers what the node does.
    const mined = async () => ((await direct('eth_getTransactionReceipt', [lastPayment])) as string | null) !== null;
    for (let wait = 0; wait < 50 && !(await mined()); wait++) await sleep(100);
    const paid = await direct('eth_getBalance', [payee, 'latest']);
    expect(BigInt(paid)).toBe(BigInt(payments));
    await sleep(2_200);
    expect(await rpc('eth_getBalance', [payee, 'latest'], 1)).toBe(paid);
    const height = BigInt(await rpc('eth_blockNumber', [], 2));
    expect(BigInt(await direct('eth_blockNumber', [])) - height).toBeLessThanOrEqual(1n);
  });
});

/** Reads that began after another had answered and got an older value than it (none expected). */
function olderAfterNewer(reads: readonly Read[]): string[] {
  const byEnd = [...reads].sort((a, b) => a.endedAt - b.endedAt);
  const byStart = [...reads].sort((a, b) => a.startedAt - b.startedAt);
  const found: string[] = [];
  let highest = -1n;
  let ended = 0;
  for (const read of byStart) {
    while (ended < byEnd.length && byEnd[ended]!.endedAt < read.startedAt) highest = maxOf(highest, byEnd[ended++]!.value);
    if (read.value < highest) found.push(`${read.value} after ${highest} had been answered`);
  }
  return found;
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
