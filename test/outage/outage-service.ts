import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { type Address, createWalletClient, http } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { expect } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { acceptingAccountCode, bareUserOperation } from '../bundler/support.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freeze } from '../support/freeze.ts';
import { jsonRpc } from '../support/json-rpc.ts';
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
  /** SIGSTOP (or SIGCONT) to the postmaster and every server process it started: a frozen host. */
  signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Sessions waiting in LISTEN (the chain event relay's and the webhook workers'). */
  listeners(): Promise<string[]>;
  /**
   * Ends the service's idle pooled sessions (not those in LISTEN or holding an advisory-lock lease),
   * so that its next queries need new connections: what a stopped postmaster leaves hanging.
   */
  endIdleSessions(): Promise<number>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-outage-pg-'));
  // fsync off only: the OS keeps what a killed server wrote (synchronous_commit off would lose commits).
  const settings = { fsync: 'off' };
  let server = await startEmbeddedPostgres({ dir, logger: silent, settings });
  /** The processes of a killed server: its backends outlive the postmaster for a moment, holding its shared memory. */
  let killed: number[] = [];
  const own: OwnPostgres = {
    get url() {
      return server.url;
    },
    get server() {
      return server;
    },
    kill() {
      killed = [server.pid, ...childrenOf(server.pid)];
      process.kill(server.pid, 'SIGKILL');
    },
    async start() {
      // A postmaster started while the old backends still hold the shared memory refuses to start
      // ("pre-existing shared memory block is still in use"): a start right after kill() failed so.
      await waitUntilGone(killed, 10_000);
      const port = server.port;
      server = await startEmbeddedPostgres({ dir, logger: silent, settings });
      if (server.port !== port) throw new Error(`the server came back on port ${server.port}, not ${port}`);
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    signalAll(signal) {
      const pids = [server.pid, ...childrenOf(server.pid)];
      for (const pid of signal === 'SIGSTOP' ? pids : pids.reverse()) {
        try {
          if (signal === 'SIGSTOP') freeze(pid);
          else process.kill(pid, signal);
        } catch {
          // Exited meanwhile.
        }
      }
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
    async endIdleSessions() {
      const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ ended: boolean }>(
          `select pg_terminate_backend(pid) as ended from pg_stat_activity
           where backend_type = 'client backend' and state = 'idle' and pid <> pg_backend_pid()
             and query not ilike 'LISTEN %'
             and pid not in (select pid from pg_locks where locktype = 'advisory')`,
        );
        return rows.filter((row) => row.ended).length;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
  return own;
}

async function waitUntilGone(pids: readonly number[], withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (pids.some(alive)) {
    if (Date.now() > deadline)
      throw new Error(`the killed Postgres processes ${pids.filter(alive)} still run after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Exited meanwhile.
    }
  }
  return children;
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
   * delivered to the webhook receiver, its block reaches the WebSocket newHeads subscriber, and a
   * UserOperation sent meanwhile is bundled (the bundle loop).
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
    database = opened;
  } else {
    database = await createTestDatabase();
  }
  const service = await startTestService({
    sharing: { anvil: options.anvil.devnet, database },
    redisUrl: options.redisUrl,
    logLevel: process.env.TEST_LOG_LEVEL,
    settings: {
      webhooks: { retry_schedule_s: [0.2, 0.5, 1, 1, 1, 2, 2, 2, 5, 5], timeout_s: 1 },
      bundler_keys: devnetExecutorKeys[0],
    },
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
        bundler: { enabled: true },
      },
    ],
  });
  await installErc4337Contracts(anvilUrl);
  await anvilCall(anvilUrl, 'anvil_setCode', [opSender, acceptingAccountCode]);
  await anvilCall(anvilUrl, 'anvil_setBalance', [opSender, '0xde0b6b3a7640000']);
  let opNonce = 0;
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
      const left = () => Math.max(1, deadline - Date.now());
      const hash = await wallet.sendTransaction({ to: watched, value: 1n });
      const opHash = await sendOp(service.url, key, opNonce++);
      const delivered = (requests: readonly { json: unknown }[]) =>
        requests.some((request) => JSON.stringify(request.json).includes(hash));
      await receiver.waitFor(delivered, left(), `the webhook delivery of ${hash}`);
      const receipt = (await anvilCall(anvilUrl, 'eth_getTransactionReceipt', [hash])) as { blockNumber: string };
      await heads.waitFor(
        (message) =>
          message.method === 'eth_subscription' &&
          message.params?.subscription === headsSubscription &&
          BigInt(message.params.result.number) >= BigInt(receipt.blockNumber),
        left(),
      );
      while (!(await bundlerCall(service.url, key, 'eth_getUserOperationReceipt', [opHash])).result) {
        if (Date.now() > deadline) throw new Error(`the UserOperation ${opHash} was not bundled within ${withinMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      heads.close();
      await receiver.close();
      await service.stop();
      await database.close().catch(() => undefined);
    },
  };
}

/** An account whose code accepts any op (test/bundler/support.ts): the bundler loop's liveness check. */
const opSender = '0x000000000000000000000000000000000000a0a1' as Address;

const anvilCall = (url: string, method: string, params: unknown[]) => jsonRpc(url, method, params, 5_000);

// biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
async function bundlerCall(serviceUrl: string, key: string, method: string, params: unknown[]): Promise<any> {
  const response = await fetch(`${serviceUrl}/v1/bundler/ethereum/devnet`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  return response.json();
}

/** Estimates and sends one op of the accepting account; returns its hash. */
async function sendOp(serviceUrl: string, key: string, nonce: number): Promise<string> {
  const base = bareUserOperation(opSender, `0x${nonce.toString(16)}`);
  const estimate = await bundlerCall(serviceUrl, key, 'eth_estimateUserOperationGas', [base, entryPoint07Address]);
  if (!estimate.result) throw new Error(`estimate: ${JSON.stringify(estimate)}`);
  const sent = await bundlerCall(serviceUrl, key, 'eth_sendUserOperation', [
    { ...base, ...estimate.result },
    entryPoint07Address,
  ]);
  if (typeof sent.result !== 'string') throw new Error(`send: ${JSON.stringify(sent)}`);
  return sent.result;
}
