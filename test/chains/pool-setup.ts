import { setTimeout as sleep } from 'node:timers/promises';
import type { Devnet } from '../../src/chains/devnet.ts';
import { createUpstreamPool, type UpstreamPool, type UpstreamPoolOptions } from '../../src/chains/upstream-pool.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { answeringChainId, rpcAnswer, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';

/** What a pool test started; `cleanUp` stops all of it (stalled anvils are continued first). */
export function createPoolFixture() {
  const anvils: Devnet[] = [];
  const servers: TestRpcServer[] = [];
  const pools: UpstreamPool[] = [];
  return {
    async anvils(count: number): Promise<Devnet[]> {
      const started = await Promise.all(Array.from({ length: count }, () => startTestAnvil()));
      anvils.push(...started);
      return started;
    },
    /** The servers started so far, in order. */
    servers(): readonly TestRpcServer[] {
      return servers;
    },
    server(server: TestRpcServer): TestRpcServer {
      servers.push(server);
      return server;
    },
    /** A node at `head` that answers eth_getBlockByNumber after `delayMs`, with null above its head. */
    async blockNode(head: number, delayMs: number): Promise<TestRpcServer> {
      const server = await startRpcServer(
        answeringChainId(31337, async (body, method) => {
          if (method === 'eth_blockNumber') return { body: rpcAnswer(body, { result: `0x${head.toString(16)}` }) };
          const asked = Number((JSON.parse(body) as { params: [string] }).params[0]);
          await sleep(delayMs);
          return { body: rpcAnswer(body, { result: asked > head ? null : { number: `0x${asked.toString(16)}` } }) };
        }),
      );
      servers.push(server);
      return server;
    },
    pool(urls: string[], options: Partial<UpstreamPoolOptions> = {}): UpstreamPool {
      const pool = createUpstreamPool({
        upstreams: urls.map((url) => ({ url, timeoutMs: 2_000 })),
        chain: 'ethereum',
        network: 'devnet',
        headPollMs: 100,
        ...options,
      });
      pools.push(pool);
      return pool;
    },
    async cleanUp() {
      for (const anvil of anvils) if (anvil.alive) process.kill(anvil.pid, 'SIGCONT');
      await Promise.all(pools.splice(0).map((pool) => pool.close()));
      await Promise.all([...anvils.splice(0).map((anvil) => anvil.stop()), ...servers.splice(0).map((server) => server.close())]);
    },
  };
}

export const call = (method: string, params: unknown[] = [], id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Sends one JSON-RPC body straight to a node and returns its text. */
export async function direct(url: string, body: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return response.text();
}

export function resultOf(text: string): unknown {
  return (JSON.parse(text) as { result?: unknown }).result;
}
