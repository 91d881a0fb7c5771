import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  eventually,
  isAnvilRunning,
  killAnvils,
  readAnvilPid,
  runCli,
  type StartedServer,
  startServer,
  stopAllCli,
} from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const startTimeoutMs = 90_000;

interface JsonRpcAnswer {
  result?: string;
  error?: { code: number; message: string };
}

describe('blockyard start (embedded devnet, real process)', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let server: StartedServer;
  const anvilPids = new Set<number>();

  async function start(): Promise<StartedServer> {
    const started = await startServer({ env, cwd: dataDir, timeoutMs: startTimeoutMs });
    const pid = readAnvilPid(dataDir);
    if (pid !== undefined) anvilPids.add(pid);
    return started;
  }

  async function rpc(key: string, method: string, params: unknown[] = []): Promise<{ status: number; body: JsonRpcAnswer }> {
    const response = await fetch(`${server.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json()) as JsonRpcAnswer };
  }

  async function healthz(): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
    const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, string> } };
  }

  /** `blockyard accounts|keys ...` against the running server, admin token from the data dir. */
  function admin(...args: string[]) {
    return runCli([...args, '--url', server.url, '--data-dir', dataDir], { env: cliEnv(), cwd: dataDir, timeoutMs: 30_000 });
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-cli-start-'));
    if (process.env.DATABASE_URL) database = await createTestDatabase();
    env = cliEnv({ BLOCKYARD_DATA_DIR: dataDir, PORT: '0', DATABASE_URL: database?.url });
    server = await start();
  }, startTimeoutMs + 30_000);

  afterAll(async () => {
    await stopAllCli();
    killAnvils(anvilPids);
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints the base URL and a test key, saved with the admin token in 0600 files', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
    expect(server.key).toMatch(/^svc_test_[1-9A-HJ-NP-Za-km-z]{43,}$/);
    expect(server.cli.stdout()).toContain(`Blockyard is running at ${server.url}`);
    // The embedded Postgres in the data dir, or the per-test database when this run targets DATABASE_URL.
    expect(server.cli.stdout()).toContain(`"embedded":${database === undefined}`);
    expect(existsSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'))).toBe(database === undefined);

    const keyFile = join(dataDir, 'dev-api-key');
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(server.key);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const tokenFile = join(dataDir, 'admin-token');
    expect(readFileSync(tokenFile, 'utf8').trim().length).toBeGreaterThanOrEqual(16);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  });

  it('prints the URL with the key in its path first, and that URL alone is enough', async () => {
    const printed = server.cli.stdout();
    const rpcUrl = `${server.url}/v1/rpc/ethereum/devnet/${server.key}`;
    expect(printed).toContain(`    ${rpcUrl}\n`);
    expect(printed).toContain(`${server.url.replace('http', 'ws')}/v1/ws/ethereum/devnet/${server.key}`);
    expect(printed.indexOf(rpcUrl)).toBeLessThan(printed.indexOf('API reference'));
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(((await response.json()) as JsonRpcAnswer).result).toBe('0x7a69');
  });

  it('proxies eth_blockNumber with the printed key, and the devnet mines a block a second', async () => {
    const first = await rpc(server.key, 'eth_blockNumber');
    expect(first.status).toBe(200);
    expect(first.body.result).toMatch(/^0x[0-9a-f]+$/);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const second = await rpc(server.key, 'eth_blockNumber');
    expect(second.status).toBe(200);
    expect(BigInt(second.body.result!)).toBeGreaterThan(BigInt(first.body.result!));
  });

  it('serves /healthz (all ok), /docs and the OpenAPI document', async () => {
    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect(Object.keys(health.body.checks).length).toBeGreaterThanOrEqual(3);
    for (const value of Object.values(health.body.checks)) expect(value).toBe('ok');
    expect(Object.keys(health.body.checks)).toEqual(expect.arrayContaining(['database', 'chain ethereum/devnet']));

    const docs = await fetch(`${server.url}/docs`, { signal: AbortSignal.timeout(10_000) });
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toMatch(/<html/i);

    const openapi = await fetch(`${server.url}/v1/openapi.json`, { signal: AbortSignal.timeout(10_000) });
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/healthz']));
  });

  it('the admin CLI creates an account and a key, lists and revokes it, against the running server', async () => {
    const account = await admin('accounts', 'create', '--name', 'acme', '--plan', 'free');
    expect(account.code, account.stderr).toBe(0);
    const accountBody = JSON.parse(account.stdout) as { id: string; name: string; plan: string };
    expect(accountBody.id).toMatch(/^acc_/);
    expect(accountBody.name).toBe('acme');
    expect(accountBody.plan).toBe('free');

    const created = await admin('keys', 'create', '--account', accountBody.id, '--env', 'test', '--scopes', 'rpc:read');
    expect(created.code, created.stderr).toBe(0);
    const keyBody = JSON.parse(created.stdout) as { id: string; key: string; environment: string; scopes: string[] };
    expect(keyBody.key).toMatch(/^svc_test_/);
    expect(keyBody.environment).toBe('test');
    expect(keyBody.scopes).toEqual(['rpc:read']);

    const works = await rpc(keyBody.key, 'eth_blockNumber');
    expect(works.status).toBe(200);
    expect(works.body.result).toMatch(/^0x[0-9a-f]+$/);

    const listed = await admin('keys', 'list', '--account', accountBody.id);
    expect(listed.code, listed.stderr).toBe(0);
    const listBody = JSON.parse(listed.stdout) as { keys: { id: string; prefix: string }[]; total: number };
    expect(listBody.total).toBe(1);
    expect(listBody.keys[0]!.id).toBe(keyBody.id);
    expect(listBody.keys[0]!.prefix).toBe(keyBody.key.slice(0, listBody.keys[0]!.prefix.length));
    expect(listed.stdout).not.toContain(keyBody.key);

    const revoked = await admin('keys', 'revoke', keyBody.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await rpc(keyBody.key, 'eth_blockNumber')).status).toBe(401);

    const emailed = await admin('accounts', 'set-email', accountBody.id, '--email', 'ops@acme.test');
    expect(emailed.code, emailed.stderr).toBe(0);
    expect(JSON.parse(emailed.stdout).email).toBe('ops@acme.test');
    const badEmail = await admin('accounts', 'set-email', accountBody.id, '--email', 'not-an-address');
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/email/);

    const webhookKey = await admin('keys', 'create', '--account', accountBody.id, '--env', 'test', '--scopes', 'webhooks:manage');
    const webhook = await fetch(`${server.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': JSON.parse(webhookKey.stdout).key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', chain: 'ethereum', event_type: 'new_block' }),
      signal: AbortSignal.timeout(10_000),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const disabled = await admin('webhooks', 'disable', webhook.id, '--reason', 'abuse report');
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id: webhook.id, status: 'disabled', status_reason: 'abuse report' });
    const listedHooks = await admin('webhooks', 'list', '--account', accountBody.id, '--status', 'disabled');
    expect(JSON.parse(listedHooks.stdout).webhooks.map((w: { id: string }) => w.id)).toEqual([webhook.id]);
    const enabled = await admin('webhooks', 'enable', webhook.id);
    expect(JSON.parse(enabled.stdout).status).toBe('active');

    const wrongToken = await admin('accounts', 'list', '--admin-token', 'wrongwrongwrongwrong');
    expect(wrongToken.code).not.toBe(0);
    expect(wrongToken.code).not.toBeNull();
    expect(wrongToken.stderr).toMatch(/unauthorized|admin token/i);
    expect(wrongToken.stdout.trim()).toBe('');
  }, 120_000);

  it(
    'SIGTERM exits 0 and stops anvil; a restart keeps the key and the chain state',
    async () => {
      const address = '0x00000000000000000000000000000000000b10c5';
      const balance = '0x1bc16d674ec80000'; // 2 ETH
      const set = await rpc(server.key, 'anvil_setBalance', [address, balance]);
      expect(set.status).toBe(200);
      expect(set.body.error).toBeUndefined();
      expect((await rpc(server.key, 'eth_getBalance', [address, 'latest'])).body.result).toBe(balance);

      const anvilPid = readAnvilPid(dataDir);
      expect(anvilPid).toBeDefined();
      expect(isAnvilRunning(anvilPid!)).toBe(true);

      server.cli.child.kill('SIGTERM');
      const exit = await server.cli.waitForExit(15_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(isAnvilRunning(anvilPid!)).toBe(false);
      expect(existsSync(join(dataDir, 'devnet', 'anvil.pid'))).toBe(false);

      const previousKey = server.key;
      server = await start();
      expect(server.key).toBe(previousKey);
      expect(server.cli.stdout()).toContain(previousKey);
      const after = await rpc(server.key, 'eth_getBalance', [address, 'latest']);
      expect(after.status).toBe(200);
      expect(after.body.result).toBe(balance);
    },
    startTimeoutMs + 60_000,
  );

  it('when anvil dies, /healthz says 503 and names the devnet, the log says so, and the API keeps answering', async () => {
    const anvilPid = readAnvilPid(dataDir);
    expect(anvilPid).toBeDefined();
    expect(isAnvilRunning(anvilPid!)).toBe(true);
    expect((await healthz()).status).toBe(200);

    process.kill(anvilPid!, 'SIGKILL');
    // The process check turns as soon as the server has seen anvil exit; the chain's at its next head poll (refused: out at once).
    const unhealthy = await eventually(
      async () => {
        const health = await healthz();
        const { checks } = health.body;
        return health.status === 503 && checks['devnet process'] !== 'ok' && checks['chain ethereum/devnet'] !== 'ok'
          ? health
          : undefined;
      },
      { timeoutMs: 10_000, what: "/healthz to answer 503 with the 'devnet process' and the chain checks failing" },
    );
    expect(unhealthy.body.status).toBe('unavailable');
    expect(unhealthy.body.checks.database).toBe('ok');
    expect(unhealthy.body.checks['devnet process']).toMatch(/not running/);
    expect(unhealthy.body.checks['chain ethereum/devnet']).toMatch(/^error/);
    await eventually(async () => (server.cli.stdout().includes('exited unexpectedly') ? true : undefined), {
      timeoutMs: 5_000,
      what: "the log line 'exited unexpectedly'",
    });

    expect(server.cli.exitInfo).toBeUndefined();
    expect((await healthz()).status).toBe(503);
    const proxied = await fetch(`${server.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(proxied.status).toBe(200);
    const answer = (await proxied.json()) as JsonRpcAnswer;
    expect(answer.result).toBeUndefined();
    expect(answer.error?.message).toMatch(/upstream/);

    server.cli.child.kill('SIGTERM');
    expect(await server.cli.waitForExit(15_000)).toEqual({ code: 0, signal: null });
  }, 60_000);
});
