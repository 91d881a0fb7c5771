// The soak's steady mixed load at a fixed rate (bench/soak.ts): every request's latency is kept with
// its route group and time, so the report can take a p99 per group per minute.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Address, createPublicClient, createWalletClient, type Hex, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import WebSocket from 'ws';
import { type BenchAccount, type BundlerTarget, fund, newAccount, runOp } from './bundler-ops.ts';

export type RouteGroup = 'rpc hit' | 'rpc miss' | 'tokens' | 'nfts' | 'dashboard' | 'bundler' | 'bundler ops';
export const routeGroups: readonly RouteGroup[] = [
  'rpc hit',
  'rpc miss',
  'tokens',
  'nfts',
  'dashboard',
  'bundler',
  'bundler ops',
];
/** A handful a minute (a simulation each): shown, but too few for a p99 to be compared. */
export const uncomparedGroups: ReadonlySet<RouteGroup> = new Set(['bundler ops']);

/** One answered request: when (ms since the load started), its group, how long it took, whether it was right. */
export interface Sample {
  at: number;
  group: RouteGroup;
  /** The request's path without its query (the slowest are named when a group's p99 fails). */
  path: string;
  ms: number;
  ok: boolean;
}

export interface SoakTarget {
  url: string;
  key: string;
  devnetUrl: string;
  /** The dashboard session cookie (`name=value`). */
  cookie: string;
}

export interface SoakLoad {
  readonly samples: Sample[];
  /** Failures by group and reason (the first few kept). */
  readonly failures: Map<string, number>;
  readonly counts: { wsMessages: number; wsClosed: number; deliveries: number; transfers: number; ops: number };
  stop(): Promise<void>;
}

/** Requests per second of each kind (the fixed rate). */
/** Each group gets at least ~100 samples a minute, so its per-minute p99 is not just its slowest request. */
const perSecond = { rpcHit: 10, rpcMiss: 5, tokens: 2, nfts: 2, bundlerReads: 2 };
const dashboardEveryMs = 2_000;
const transferEveryMs = 2_000;
const opEveryMs = 20_000;
const requestTimeoutMs = 10_000;
const wsSubscribers = 200;
/** anvil's account #7 pays the webhook transfers, #8 funds the smart accounts (bench:bundler uses #7 and #8 too, never at once). */
const transferKey: Hex = '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356';
const funderKey: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
export const watchedAddresses: readonly Address[] = [
  '0x00000000000000000000000000000000005041a1',
  '0x00000000000000000000000000000000005041a2',
  '0x00000000000000000000000000000000005041a3',
];

export async function startSoakLoad(target: SoakTarget, log: (line: string) => void): Promise<SoakLoad> {
  const started = performance.now();
  const samples: Sample[] = [];
  const failures = new Map<string, number>();
  const counts = { wsMessages: 0, wsClosed: 0, deliveries: 0, transfers: 0, ops: 0 };
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const inFlight = new Set<Promise<unknown>>();
  const track = (task: Promise<unknown>) => {
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  };
  const fail = (group: string, reason: string) =>
    failures.set(`${group}: ${reason.slice(0, 120)}`, (failures.get(`${group}: ${reason.slice(0, 120)}`) ?? 0) + 1);

  async function timed(
    group: RouteGroup,
    path: string,
    init: RequestInit = {},
    accept: (status: number) => boolean = (status) => status === 200,
  ) {
    const from = performance.now();
    try {
      const response = await fetch(`${target.url}${path}`, { ...init, signal: AbortSignal.timeout(requestTimeoutMs) });
      const text = await response.text();
      const ok = accept(response.status) && !((group.startsWith('rpc') || group === 'bundler') && text.includes('"error"'));
      samples.push({ at: from - started, group, path: path.split('?')[0]!, ms: performance.now() - from, ok });
      if (!ok) fail(group, `${response.status} ${text}`);
    } catch (error) {
      samples.push({ at: from - started, group, path: path.split('?')[0]!, ms: performance.now() - from, ok: false });
      fail(group, (error as Error).message);
    }
  }
  const every = (ms: number, task: () => Promise<unknown>) => {
    timers.push(
      setInterval(() => {
        if (!stopped) track(task());
      }, ms),
    );
  };
  const rpc = (method: string, params: unknown[]) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': target.key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const key = { headers: { 'x-api-key': target.key } };
  const randomAddress = () =>
    `0x${Array.from({ length: 40 }, () => Math.floor(Math.random() * 16).toString(16)).join('')}` as Address;

  // Webhook deliveries: a local receiver, a webhook on each watched address, a payment every 2 s.
  const receiver = await startCountingReceiver(() => {
    counts.deliveries++;
  });
  for (const address of watchedAddresses) {
    const created = await fetch(`${target.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': target.key },
      body: JSON.stringify({
        url: receiver.url,
        chain: 'ethereum',
        network: 'devnet',
        event_type: 'address_activity',
        config: { addresses: [address] },
      }),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    if (created.status !== 201) throw new Error(`creating a webhook answered ${created.status}: ${await created.text()}`);
  }
  const client = createPublicClient({ chain: foundry, transport: http(target.devnetUrl), pollingInterval: 200 }) as PublicClient;
  const payer = createWalletClient({
    chain: foundry,
    transport: http(target.devnetUrl),
    account: privateKeyToAccount(transferKey),
  });
  let transfer = 0;
  every(transferEveryMs, async () => {
    try {
      await payer.sendTransaction({ to: watchedAddresses[transfer++ % watchedAddresses.length]!, value: 1n, gas: 21_000n });
      counts.transfers++;
    } catch (error) {
      fail('transfers', (error as Error).message);
    }
  });

  // 200 WebSocket newHeads subscribers, kept for the whole run.
  const sockets = await openSubscribers(
    `${target.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet?apiKey=${target.key}`,
    counts,
  );
  log(`${sockets.length} WebSocket subscribers on newHeads`);

  // Dashboard: the page, its assets, and an API call on a session.
  const page = await (await fetch(`${target.url}/`, { signal: AbortSignal.timeout(requestTimeoutMs) })).text();
  const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  every(dashboardEveryMs, async () => {
    await timed('dashboard', '/');
    for (const asset of assets) await timed('dashboard', asset);
    await timed('dashboard', '/dashboard/api/keys', { headers: { cookie: target.cookie } });
  });

  // JSON-RPC hits (a constant answer, cached), misses (a balance nobody asked for), token and NFT reads.
  every(1_000 / perSecond.rpcHit, () => timed('rpc hit', '/v1/rpc/ethereum/devnet', rpc('eth_chainId', [])));
  every(1_000 / perSecond.rpcMiss, () =>
    timed('rpc miss', '/v1/rpc/ethereum/devnet', rpc('eth_getBalance', [randomAddress(), 'latest'])),
  );
  every(1_000 / perSecond.tokens, () =>
    timed('tokens', `/v1/tokens/ethereum/balances/${watchedAddresses[0]}?network=devnet`, key),
  );
  every(1_000 / perSecond.nfts, () =>
    timed('nfts', `/v1/nfts/ethereum/collection/${watchedAddresses[1]}?network=devnet`, key, (status) => status < 500),
  );

  // Bundler: one smart account, deployed by its first op, then a plain op every 20 s (one at a time).
  const bundler: BundlerTarget = {
    name: 'blockyard',
    rpcUrl: `${target.url}/v1/bundler/ethereum/devnet`,
    headers: { 'x-api-key': target.key },
  };
  const account: BenchAccount = await newAccount(client);
  await fund(
    client,
    createWalletClient({ chain: foundry, transport: http(target.devnetUrl), account: privateKeyToAccount(funderKey) }),
    [account.address],
  );
  let deployed = false;
  let opRunning = false;
  const oneOp = async () => {
    if (opRunning) return;
    opRunning = true;
    const from = performance.now();
    try {
      const sample = await runOp({
        target: bundler,
        client,
        account,
        kind: deployed ? 'plain' : 'deploy',
        recipient: watchedAddresses[2]!,
        value: 1n,
        receiptPollMs: 250,
        receiptTimeoutMs: 30_000,
      });
      deployed = true;
      counts.ops++;
      samples.push({
        at: from - started,
        group: 'bundler ops',
        path: 'eth_estimateUserOperationGas',
        ms: sample.estimateMs,
        ok: true,
      });
      samples.push({
        at: from - started,
        group: 'bundler ops',
        path: 'eth_sendUserOperation',
        ms: sample.sendMs,
        ok: sample.success,
      });
    } catch (error) {
      samples.push({ at: from - started, group: 'bundler ops', path: 'user operation', ms: performance.now() - from, ok: false });
      fail('bundler', (error as Error).message);
    } finally {
      opRunning = false;
    }
  };
  track(oneOp());
  every(opEveryMs, oneOp);
  // The bundler endpoint between ops (ops are few): a read every wallet makes first.
  every(1_000 / perSecond.bundlerReads, () =>
    timed('bundler', '/v1/bundler/ethereum/devnet', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': target.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
    }),
  );

  return {
    samples,
    failures,
    counts,
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => setTimeout(resolve, 35_000))]);
      for (const socket of sockets) socket.terminate();
      await receiver.close();
    },
  };
}

async function openSubscribers(url: string, counts: SoakLoad['counts']): Promise<WebSocket[]> {
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: requestTimeoutMs });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error('not subscribed in time'));
      }, requestTimeoutMs);
      ws.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      ws.on('close', () => counts.wsClosed++);
      ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
      ws.on('message', (data) => {
        if (String(data).includes('"id":1')) {
          clearTimeout(timer);
          resolve(ws);
        } else counts.wsMessages++;
      });
    });
  const sockets: WebSocket[] = [];
  // Ten at a time: the service's per-address connection rate is not the subject here.
  for (let index = 0; index < wsSubscribers; index += 10) sockets.push(...(await Promise.all(Array.from({ length: 10 }, open))));
  return sockets;
}

async function startCountingReceiver(onDelivery: () => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      onDelivery();
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
