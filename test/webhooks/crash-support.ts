import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, encodeFunctionData, type Hex, type PrivateKeyAccount, parseAbi } from 'viem';
import { stringify } from 'yaml';
import type { IndexedChain } from '../indexer/support.ts';
import { type CliProcess, cliEnv, spawnCli, stopAllCli } from '../support/cli.ts';
import { type Receiver, startWebhookChain } from './support.ts';

/** A `blockyard start --roles webhooks` process on another process's database and chain. */
export interface DeliveryProcessOptions {
  /** The shared deployment's database. */
  databaseUrl: string;
  /** The `chains:` of the process that indexes; this one lists the same chains with their indexer off. */
  chains: readonly unknown[];
  /** Its own data directory (the YAML file is written there). */
  dataDir: string;
  adminToken: string;
  /** The key every process of the deployment encrypts webhook signing secrets with. */
  encryptionKey: string;
  /** The YAML `webhooks:` section. */
  webhooks?: Record<string, unknown>;
  /** More environment (e.g. libfaketime's, for a process whose clock is off). */
  env?: Record<string, string>;
}

/**
 * Spawns the delivery process (matcher and delivery workers only) and resolves once it has started
 * them: the banner is printed after the webhook role is running and the server listens.
 */
export async function startDeliveryProcess(options: DeliveryProcessOptions, timeoutMs = 90_000): Promise<CliProcess> {
  const configFile = join(options.dataDir, 'blockyard.yaml');
  const chains = options.chains.map((entry) => ({ ...(entry as Record<string, unknown>), indexer: { enabled: false } }));
  writeFileSync(configFile, stringify({ chains, ...(options.webhooks ? { webhooks: options.webhooks } : {}) }));
  const cli = spawnCli(['start', '--roles', 'webhooks'], {
    cwd: options.dataDir,
    env: cliEnv({
      DATABASE_URL: options.databaseUrl,
      BLOCKYARD_CONFIG: configFile,
      BLOCKYARD_DATA_DIR: options.dataDir,
      BLOCKYARD_ADMIN_TOKEN: options.adminToken,
      BLOCKYARD_ENCRYPTION_KEY: options.encryptionKey,
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...options.env,
    }),
  });
  try {
    await cli.waitForOutput(/Blockyard is running at http:\/\/127\.0\.0\.1:\d+/, timeoutMs);
  } catch (error) {
    await cli.stop(5_000);
    throw error;
  }
  return cli;
}

const mintAbi = parseAbi(['function mint(address,uint256)']);

/** Generous for one mint (about 70k gas to a new holder), and 100 of them fit anvil's 30M-gas block. */
const mintGas = 150_000n;

async function rpc(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return response.json();
}

async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = (await rpc(url, { jsonrpc: '2.0', id: 1, method, params })) as { result?: T; error?: { message: string } };
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

export interface Storm {
  /** The first and last block holding the storm's transactions. */
  fromBlock: bigint;
  toBlock: bigint;
}

/**
 * `count` ERC-20 mints (one Transfer log each) to distinct holders, signed here with explicit nonces
 * and sent without waiting for receipts: `perBlock` of them in one JSON-RPC batch, then mined into
 * one block with automine off, so the indexer and the webhook matcher see a burst of full blocks.
 */
export async function mintStorm(options: {
  anvilUrl: string;
  token: Address;
  account: PrivateKeyAccount;
  count: number;
  perBlock: number;
}): Promise<Storm> {
  const { anvilUrl, account } = options;
  const chainId = Number(BigInt(await call<Hex>(anvilUrl, 'eth_chainId')));
  let nonce = Number(BigInt(await call<Hex>(anvilUrl, 'eth_getTransactionCount', [account.address, 'pending'])));
  const fromBlock = BigInt(await call<Hex>(anvilUrl, 'eth_blockNumber')) + 1n;
  await call(anvilUrl, 'evm_setAutomine', [false]);
  try {
    for (let sent = 0; sent < options.count; ) {
      const size = Math.min(options.perBlock, options.count - sent);
      const raw: Hex[] = [];
      for (let i = 0; i < size; i++) {
        const holder = `0x${(0xc0de_0000 + sent + i).toString(16).padStart(40, '0')}` as Address;
        raw.push(
          await account.signTransaction({
            type: 'eip1559',
            chainId,
            nonce: nonce++,
            to: options.token,
            data: encodeFunctionData({ abi: mintAbi, args: [holder, BigInt(sent + i + 1)] }),
            gas: mintGas,
            maxFeePerGas: 100_000_000_000n,
            maxPriorityFeePerGas: 1_000_000_000n,
          }),
        );
      }
      const replies = (await rpc(
        anvilUrl,
        raw.map((tx, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [tx] })),
      )) as { error?: { message: string } }[];
      const refused = replies.find((reply) => reply.error);
      if (refused) throw new Error(`eth_sendRawTransaction: ${refused.error?.message}`);
      // One block per batch; a batch that did not fit (it should) spills into the next block.
      do await call(anvilUrl, 'evm_mine');
      while (BigInt((await call<{ pending: Hex }>(anvilUrl, 'txpool_status')).pending) > 0n);
      sent += size;
    }
  } finally {
    await call(anvilUrl, 'evm_setAutomine', [true]);
  }
  const toBlock = BigInt(await call<Hex>(anvilUrl, 'eth_blockNumber'));
  return { fromBlock, toBlock };
}

/**
 * A deployment whose deliveries are other processes' job: one process indexes and serves the API (roles
 * `api,indexer`), with a receiver, an API key and a data directory for the delivery processes.
 */
export interface SplitDeployment {
  readonly chain: IndexedChain;
  readonly receiver: Receiver;
  readonly key: string;
  readonly dataDir: string;
  /** What `startDeliveryProcess` needs for a delivery process of this deployment, keeping its data in `dataDir`. */
  deliveryOptions(dataDir: string, env?: Record<string, string>): DeliveryProcessOptions;
  /** Stops every CLI process, the service and the receiver, and removes the data directory. */
  stop(): Promise<void>;
}

export async function startSplitDeployment(dirPrefix: string, webhooks: Record<string, unknown>): Promise<SplitDeployment> {
  const encryptionKey = randomBytes(32).toString('hex');
  const started = await startWebhookChain({ roles: 'api,indexer', settings: { encryption_key: encryptionKey, webhooks } });
  const { chain } = started;
  let dataDir: string | undefined;
  const stop = async () => {
    await stopAllCli();
    await started.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    dataDir = mkdtempSync(join(tmpdir(), dirPrefix));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    ...started,
    dataDir,
    deliveryOptions: (dir, env) => ({
      databaseUrl: chain.service.database.url,
      chains: chain.chainsConfig,
      dataDir: dir,
      adminToken: chain.service.adminToken,
      encryptionKey,
      webhooks,
      ...(env ? { env } : {}),
    }),
    stop,
  };
}
