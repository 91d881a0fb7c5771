import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { type Address, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { expect } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type Receiver, startReceiver } from '../webhooks/support.ts';
import { connectRaw, type RawClient } from '../ws/support/ws-client.ts';
import type { ProbeTarget } from './probes.ts';

const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const silent = pino({ level: 'silent' });

/** A Postgres server of the test's own (never the run's shared one), which it may kill and start again. */
export interface OwnPostgres {
  readonly url: string;
  readonly server: EmbeddedPostgres;
  /** SIGKILL of the postmaster (as a crash or the OOM killer would). */
  kill(): void;
  /** Starts the server again on the same port, with the same data (crash recovery included). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Sessions waiting in LISTEN (the chain event relay's and the webhook workers'). */
  listeners(): Promise<string[]>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-outage-pg-'));
  // fsync off only: the OS keeps what a killed server wrote (synchronous_commit off would lose commits).
  const settings = { fsync: 'off' };
  let server = await startEmbeddedPostgres({ dir, logger: silent, settings });
  const own: OwnPostgres = {
    get url() {
      return server.url;
    },
    get server() {
      return server;
    },
    kill() {
      process.kill(server.pid, 'SIGKILL');
    },
    async start() {
      const port = server.port;
      server = await startEmbeddedPostgres({ dir, logger: silent, settings });
      if (server.port !== port) throw new Error(`the server came back on port ${server.port}, not ${port}`);
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    async listeners() {
      const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ query: string }>(
          "select query from pg_stat_activity where query ilike 'LISTEN %' and pid <> pg_backend_pid()",
        );
        return rows.map((row) => row.query).sort();
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
  return own;
}

/** An anvil the test may kill and start again on the same port, keeping its chain (its state file). */
export interface OwnAnvil {
  readonly devnet: Devnet;
  /** SIGTERM: anvil writes its state, as a node's database survives its process. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnAnvil(): Promise<OwnAnvil> {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-outage-anvil-'));
  let devnet = await startTestAnvil({ dir });
  return {
    get devnet() {
      return devnet;
    },
    stop: () => devnet.stop(),
    async start() {
      const url = devnet.url;
      devnet = await startTestAnvil({ dir });
      if (devnet.url !== url) throw new Error(`anvil came back at ${devnet.url}, not ${url}`);
    },
    async close() {
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OutageService {
  readonly service: TestService;
  readonly target: ProbeTarget;
  readonly receiver: Receiver;
  readonly heads: RawClient;
  readonly headsSubscription: string;
  /**
   * Everything works: a payment to the watched address is indexed, relayed (LISTEN/NOTIFY) and
   * delivered to the webhook receiver, and its block reaches the WebSocket newHeads subscriber.
   */
  assertPipelineWorks(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

const watched = '0x00000000000000000000000000000000000a0a0a' as Address;

/**
 * The whole service (indexer, webhook workers, bundler, WebSocket feed) on the given anvil and
 * database, with a key, a webhook on an address and a newHeads subscriber.
 */
export async function startOutageService(options: {
  anvil: OwnAnvil;
  /** The test's own Postgres (its URL); absent: a database on the run's shared server. */
  postgres?: OwnPostgres;
  redisUrl?: string;
}): Promise<OutageService> {
  const anvilUrl = options.anvil.devnet.url;
  let database: TestDatabase;
  if (options.postgres) {
    const opened = await openDatabase({ url: options.postgres.url });
    database = { db: opened.db, url: opened.url, close: () => opened.close() };
  } else {
    database = await createTestDatabase();
  }
  const service = await startTestService({
    sharing: { anvil: options.anvil.devnet, database },
    redisUrl: options.redisUrl,
    settings: { webhooks: { retry_schedule_s: [0.2, 0.5, 1, 1, 1, 2, 2, 2, 5, 5], timeout_s: 1 } },
    chainsFor: () => [
      {
        chain: 'ethereum',
        network: 'devnet',
        chain_id: 31337,
        testnet: true,
        dev_methods: true,
        block_time_s: 0.2,
        finality_depth: 2,
        upstreams: [{ url: anvilUrl, ws_url: anvilUrl.replace('http://', 'ws://') }],
        indexer: { enabled: true },
      },
    ],
  });
  const receiver = await startReceiver();
  const { key } = await service.createKey();
  const created = await fetch(`${service.url}/v1/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: receiver.url,
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'address_activity',
      config: { addresses: [watched] },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(created.status).toBe(201);
  const heads = await connectRaw(`${service.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet?apiKey=${key}`);
  const subscribed = await heads.call('eth_subscribe', ['newHeads']);
  const headsSubscription = subscribed.result as string;
  expect(headsSubscription).toBeTypeOf('string');
  const wallet = createWalletClient({ chain: foundry, transport: http(anvilUrl), account: devAccount });
  const target: ProbeTarget = { url: service.url, key, adminToken: service.adminToken, holder: devAccount.address };

  return {
    service,
    target,
    receiver,
    heads,
    headsSubscription,
    async assertPipelineWorks(withinMs) {
      const deadline = Date.now() + withinMs;
      const hash = await wallet.sendTransaction({ to: watched, value: 1n });
      const delivered = (requests: readonly { json: { data?: unknown } }[]) =>
        requests.some((request) => JSON.stringify(request.json).includes(hash));
      await receiver.waitFor(delivered, Math.max(1, deadline - Date.now()), `the webhook delivery of ${hash}`);
      const block = (
        await await fetch(anvilUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [hash] }),
          signal: AbortSignal.timeout(5_000),
        }).then((response) => response.json() as Promise<{ result: { blockNumber: string } }>)
      ).result.blockNumber;
      await heads.waitFor(
        (message) =>
          message.method === 'eth_subscription' &&
          message.params?.subscription === headsSubscription &&
          BigInt(message.params.result.number) >= BigInt(block),
        Math.max(1, deadline - Date.now()),
      );
    },
    async close() {
      heads.close();
      await receiver.close();
      await service.stop();
      await database.close().catch(() => undefined);
    },
  };
}
