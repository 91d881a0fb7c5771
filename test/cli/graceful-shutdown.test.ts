import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cliEnv, type StartedServer, startServer, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const slowAnswerMs = 1_500;

interface RpcCall {
  id?: unknown;
  method?: string;
}

/**
 * A JSON-RPC upstream on 127.0.0.1 that answers every call with 0x2a after 1.5 s, except eth_chainId
 * (the health probe), which it answers at once. `slowCallReceived` resolves when a slow call arrives.
 */
function startSlowUpstream(): Promise<{ server: Server; url: string; slowCallReceived: Promise<void> }> {
  let onSlowCall: () => void = () => {};
  const slowCallReceived = new Promise<void>((resolve) => {
    onSlowCall = resolve;
  });
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      let parsed: RpcCall | RpcCall[];
      try {
        parsed = JSON.parse(body) as RpcCall | RpcCall[];
      } catch {
        response.writeHead(400).end();
        return;
      }
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const answers = calls.map((call) => ({
        jsonrpc: '2.0',
        id: call.id ?? null,
        result: call.method === 'eth_chainId' ? '0x7a69' : '0x2a',
      }));
      const send = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      };
      if (calls.every((call) => call.method === 'eth_chainId')) {
        send();
      } else {
        onSlowCall();
        setTimeout(send, slowAnswerMs);
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, slowCallReceived });
    });
  });
}

describe('blockyard start: graceful shutdown', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let upstream: Awaited<ReturnType<typeof startSlowUpstream>>;
  let blockyard: StartedServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-cli-graceful-'));
    upstream = await startSlowUpstream();
    if (process.env.DATABASE_URL) database = await createTestDatabase();
    const configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      stringify({
        chains: [{ chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: upstream.url }] }],
      }),
    );
    blockyard = await startServer({
      env: cliEnv({ BLOCKYARD_DATA_DIR: dataDir, BLOCKYARD_CONFIG: configFile, PORT: '0', DATABASE_URL: database?.url }),
      cwd: dataDir,
      timeoutMs: 90_000,
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllCli();
    upstream?.server.closeAllConnections();
    await new Promise((resolve) => (upstream ? upstream.server.close(resolve) : resolve(undefined)));
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs without an embedded devnet when the config lists chains', async () => {
    expect(blockyard.cli.stdout()).toContain('Chain:          ethereum/devnet (chain id 31337)');
    expect(blockyard.cli.stdout()).not.toContain('embedded devnet at');
    expect(blockyard.cli.stdout()).toContain(`"embedded":${database === undefined}`);
    const health = await fetch(`${blockyard.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
    const body = (await health.json()) as { checks: Record<string, string> };
    expect(body.checks).not.toHaveProperty('devnet process');
    expect(body.checks['chain ethereum/devnet']).toBe('ok');
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const requestStarted = Date.now();
    const inFlight = fetch(`${blockyard.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': blockyard.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] }),
      signal: AbortSignal.timeout(20_000),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown, at: Date.now() }));
    inFlight.catch(() => {});

    await Promise.race([
      upstream.slowCallReceived,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the call never reached the upstream')), 10_000)),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sigtermAt = Date.now();
    blockyard.cli.child.kill('SIGTERM');

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ jsonrpc: '2.0', id: 7, result: '0x2a' });
    // The answer came after the signal: the request really was in flight when the server was told to stop.
    expect(answered.at).toBeGreaterThan(sigtermAt);
    expect(answered.at - requestStarted).toBeGreaterThanOrEqual(slowAnswerMs - 100);

    // fetch keeps its connection alive after the answer, as most HTTP clients do: the drain must not
    // wait for such an idle connection (Fastify's keep-alive timeout is 72 s).
    const exit = await blockyard.cli.waitForExit(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(blockyard.cli.stdout()).toMatch(/"reason":"SIGTERM".*"msg":"shutting down"/);
  }, 60_000);
});
