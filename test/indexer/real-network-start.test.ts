import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { captureLog } from '../support/log-lines.ts';
import { startTestService } from '../support/service.ts';

/**
 * A real network (not embedded, no dev methods) without `start_block`: its index starts at the head of
 * its first start, a restart goes on from its tip, and a `start_block` lowered later only warns.
 */
const network = 'acme/mainnet';

function realNetwork(url: string, indexer: Record<string, unknown> = { enabled: true }) {
  return [
    {
      chain: 'acme',
      network: 'mainnet',
      chain_id: 31337,
      finality: 'depth',
      finality_depth: 2,
      block_time_s: 0.2,
      upstreams: [{ url }],
      indexer,
    },
  ];
}

describe('the index of a real network', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let firstHead: number;

  const head = async () => {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      signal: AbortSignal.timeout(5_000),
    });
    return Number(BigInt(((await response.json()) as { result: string }).result));
  };
  const mine = async (blocks: number) => {
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] }),
      signal: AbortSignal.timeout(5_000),
    });
  };
  const indexedRange = async () => {
    const { rows } = await sql<{ low: string; high: string; count: string }>`
      select min(number) as low, max(number) as high, count(*) as count from index_blocks where network = ${network}`.execute(
      database.db,
    );
    return { low: Number(rows[0]!.low), high: Number(rows[0]!.high), count: Number(rows[0]!.count) };
  };
  const startOn = async (indexer?: Record<string, unknown>, log = captureLog()) => {
    const service = await startTestService({
      sharing: { anvil, database },
      chains: realNetwork(anvil.url, indexer),
      logDestination: log.destination,
      logLevel: 'info',
    });
    await service.service.indexers[0]!.waitFor(undefined, 30_000);
    // The head may be stored already (a restart): the indexer of this process has started once it says so.
    const deadline = Date.now() + 15_000;
    while (!log.lines.some((line) => line.msg === 'indexer started')) {
      if (Date.now() > deadline) throw new Error('the indexer did not start within 15 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { service, log };
  };

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    await mine(40);
    firstHead = await head();
  }, 60_000);
  afterAll(async () => {
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  it('starts at the head of its first start and remembers it', async () => {
    const { service } = await startOn();
    try {
      expect(firstHead).toBeGreaterThanOrEqual(40);
      const range = await indexedRange();
      expect(range.low).toBe(firstHead);
      const origin = await database.db.selectFrom('index_origins').selectAll().where('network', '=', network).executeTakeFirst();
      expect(Number(origin?.first_block)).toBe(firstHead);
      // /admin/chains reads the status row, saved once a second after a round (src/indexer/progress.ts),
      // so it may trail the index by that much: wait (bounded) for the first row.
      const startBlock = async () => {
        const chains = await service.admin('GET', '/admin/chains');
        const networks = chains.body.networks as { chain: string; indexer: { start_block: number | null } }[];
        return networks.find((n) => n.chain === 'acme')?.indexer.start_block ?? null;
      };
      const deadline = Date.now() + 10_000;
      while ((await startBlock()) === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await startBlock()).toBe(firstHead);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('goes on from its tip after a restart, not from the new head', async () => {
    await mine(15);
    const { service } = await startOn();
    try {
      const now = await head();
      const range = await indexedRange();
      expect(range).toEqual({ low: firstHead, high: range.high, count: range.high - firstHead + 1 });
      expect(range.high).toBeGreaterThanOrEqual(now);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('warns once, with the command, when start_block is lowered below where the index starts', async () => {
    const { service, log } = await startOn({ enabled: true, start_block: 5 });
    try {
      const command = `blockyard index backfill --network ${network} --from 5 --to ${firstHead - 1}`;
      const warned = log.warnings().filter((line) => String(line.msg).includes('start_block'));
      expect(warned).toHaveLength(1);
      expect(warned[0]!.msg).toContain(command);
      expect(warned[0]!.command).toBe(command);
      // Nothing below the remembered start was indexed by itself.
      expect((await indexedRange()).low).toBe(firstHead);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('says nothing once a backfill filled the blocks', async () => {
    const { service } = await startOn();
    try {
      const created = await service.admin('POST', '/admin/index/backfills', { network, from: 5 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ from: 5, to: firstHead - 1 });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const job = await service.admin('GET', `/admin/index/backfills/${created.body.id}`);
        if (job.body.status === 'done') break;
        if (Date.now() > deadline) throw new Error(`backfill not done: ${JSON.stringify(job.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await service.stop();
    }
    const { service: again, log } = await startOn({ enabled: true, start_block: 5 });
    try {
      expect(log.warnings().filter((line) => String(line.msg).includes('start_block'))).toHaveLength(0);
      expect((await indexedRange()).low).toBe(5);
    } finally {
      await again.stop();
    }
  }, 90_000);
});
