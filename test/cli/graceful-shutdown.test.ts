import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  cliEnv,
  eventually,
  isAnvilRunning,
  killAnvils,
  readAnvilPid,
  type StartedServer,
  startServer,
  stopAllCli,
} from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type SlowNode, startSlowNode } from '../support/slow-node.ts';

const slowAnswerMs = 1_500;

describe('blockyard start: graceful shutdown', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let upstream: SlowNode;
  let blockyard: StartedServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-cli-graceful-'));
    upstream = await startSlowNode(slowAnswerMs);
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
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_gasPrice', params: [] }),
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

/**
 * A client that sends a JSON-RPC request's headers with `Content-Length: 100`, then 10 bytes of body,
 * then nothing: it would hold its connection (and the shutdown) until a timeout ends it.
 */
function stallBody(url: string, path: string, key: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\n` +
          'Content-Length: 100\r\n\r\n{"jsonrpc"',
      );
      resolve({ socket, closed });
    });
    socket.once('error', reject);
    // Read to the end, or the server's FIN would go unnoticed.
    socket.resume();
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now())));
  });
}

const stalledPaths = [
  '/v1/rpc/ethereum/devnet', // the JSON-RPC fast path, which reads the body itself
  '/v1/rpc/ethereum/%64evnet', // the same route through Fastify
];

describe('blockyard start: a stalled client does not hold the shutdown', () => {
  let dataDir: string;
  let database: TestDatabase;
  let upstream: SlowNode;
  let blockyard: StartedServer;
  const graceS = 2;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-cli-stalled-'));
    [upstream, database] = await Promise.all([startSlowNode(slowAnswerMs), createTestDatabase()]);
    const configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      stringify({
        chains: [{ chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: upstream.url }] }],
      }),
    );
    blockyard = await startServer({
      env: cliEnv({
        BLOCKYARD_DATA_DIR: dataDir,
        BLOCKYARD_CONFIG: configFile,
        PORT: '0',
        DATABASE_URL: database.url,
        BLOCKYARD_SHUTDOWN_GRACE: String(graceS),
      }),
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

  it('exits within the grace period (BLOCKYARD_SHUTDOWN_GRACE) plus a few seconds, closing the stalled connections', async () => {
    const stalled = await Promise.all(stalledPaths.map((path) => stallBody(blockyard.url, path, blockyard.key)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The stalled clients hold only their own connections: the server answers others meanwhile.
    const health = await fetch(`${blockyard.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    expect(health.status).toBe(200);

    const sigtermAt = Date.now();
    blockyard.cli.child.kill('SIGTERM');
    const exit = await blockyard.cli.waitForExit((graceS + 8) * 1000);
    const tookMs = Date.now() - sigtermAt;
    expect(exit).toEqual({ code: 0, signal: null });
    // The stalled requests were given the grace period, and no more than that (plus the other cleanups).
    expect(tookMs).toBeGreaterThanOrEqual(graceS * 1000 - 200);
    expect(tookMs).toBeLessThan((graceS + 5) * 1000);
    for (const { closed } of stalled) expect(await closed).toBeLessThan(sigtermAt + (graceS + 5) * 1000);
    expect(blockyard.cli.stdout()).toMatch(/"msg":"shutdown grace period over: closing the connections still open"/);
  }, 60_000);
});

describe('blockyard start: a second signal exits at once', () => {
  let dataDir: string;
  let database: TestDatabase;
  let blockyard: StartedServer;
  const anvils = new Set<number>();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-cli-second-signal-'));
    database = await createTestDatabase();
    // The embedded devnet: a child process the immediate exit must not leave behind.
    blockyard = await startServer({
      env: cliEnv({ BLOCKYARD_DATA_DIR: dataDir, PORT: '0', DATABASE_URL: database.url }),
      cwd: dataDir,
      args: ['--shutdown-grace', '60'],
      timeoutMs: 90_000,
    });
    const pid = readAnvilPid(dataDir);
    if (pid !== undefined) anvils.add(pid);
  }, 120_000);

  afterAll(async () => {
    await stopAllCli();
    killAnvils(anvils);
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('the first SIGINT drains (held by a stalled body, grace 60 s); a second one ends the process and the devnet at once', async () => {
    const [anvilPid] = anvils;
    expect(anvilPid).toBeDefined();
    expect(isAnvilRunning(anvilPid!)).toBe(true);
    await stallBody(blockyard.url, '/v1/rpc/ethereum/devnet', blockyard.key);
    await new Promise((resolve) => setTimeout(resolve, 500));

    blockyard.cli.child.kill('SIGINT');
    await blockyard.cli.waitForOutput(/"msg":"shutting down"/, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(blockyard.cli.exitInfo).toBeUndefined();

    const secondAt = Date.now();
    blockyard.cli.child.kill('SIGINT');
    const exit = await blockyard.cli.waitForExit(5_000);
    expect(Date.now() - secondAt).toBeLessThan(3_000);
    expect(exit).toEqual({ code: 130, signal: null });
    await eventually(async () => (isAnvilRunning(anvilPid!) ? undefined : true), {
      timeoutMs: 5_000,
      what: 'the devnet (anvil) to be gone',
    });
  }, 60_000);
});
