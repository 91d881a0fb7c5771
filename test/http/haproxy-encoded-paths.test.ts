import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/log-lines.ts';
import { haproxyServer, skipWithout } from '../support/requirements.ts';
import { accessLogWritten, startTestService, type TestService } from '../support/service.ts';

const shippedConfig = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));
/** An API key past the 13 characters logs may show (`svc_test_` and 4). */
const fullApiKey = /svc_(?:test|live)_[A-Za-z0-9]{5,}/;
const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The shipped haproxy config in front of the real service: a path spelled with percent-encoded
 * unreserved characters (`/%761/rpc/…/%73vc_test_…`) is normalised before haproxy's rules and its log
 * line read it, so the key is cut to its prefix there too, and the API gets the canonical path.
 */
describe('deploy/haproxy.cfg: a key in a percent-encoded path is never in its log', () => {
  skipWithout(haproxyServer);
  const log = captureLog();
  let t: TestService;
  let haproxy: ChildProcess;
  let haproxyLog = '';
  let lbUrl: string;
  let key: string;
  beforeAll(async () => {
    if (haproxyServer.missing) return;
    t = await startTestService({ logDestination: log.destination, logLevel: 'info' });
    key = (await t.createKey()).key;
    const api = new URL(t.url).host;
    const bind = `127.0.0.1:${await freePort()}`;
    lbUrl = `http://${bind}`;
    haproxy = spawn('haproxy', ['-db', '-f', shippedConfig], {
      env: { ...process.env, BLOCKYARD_LB_BIND: bind, BLOCKYARD_API1: api, BLOCKYARD_API2: api },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      haproxyLog += String(chunk);
    };
    haproxy.stdout!.on('data', keep);
    haproxy.stderr!.on('data', keep);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ready = await fetch(`${lbUrl}/livez`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`haproxy did not serve /livez within 15 s: ${haproxyLog}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
  afterAll(async () => {
    haproxy?.kill('SIGTERM');
    await t?.stop();
  });

  const post = (path: string) =>
    fetch(`${lbUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: call,
      signal: AbortSignal.timeout(10_000),
    });

  it('normalises the path: the API serves it, and neither log holds the key', async () => {
    const encodedKey = `%73${key.slice(1)}`;
    for (const path of [
      `/%761/rpc/ethereum/devnet/${encodedKey}`,
      `/v1/%72pc/ethereum/devnet/${key}`,
      `/v1/rpc/ethereum/devnet/${key.replace(/_/g, '%5f')}`,
    ]) {
      const response = await post(path);
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { result: string }).result).toBe('0x7a69');
    }
    // Elsewhere in the path, in any case: cut to the prefix all the same.
    expect((await post(`/V1/RPC/ethereum/devnet/${encodedKey}`)).status).toBe(404);
    await accessLogWritten();
    // haproxy writes its line when the answer has gone: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = haproxyLog.split('\n').filter((line) => line.includes('"POST '));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(haproxyLog).not.toContain(key.slice(13));
    expect(fullApiKey.exec(haproxyLog)?.[0]).toBeUndefined();
    expect(lines[0]).toContain(`"POST /v1/rpc/ethereum/devnet/${key.slice(0, 13)}… HTTP/1.1"`);
    const serviceLog = log.lines.map((line) => JSON.stringify(line)).join('\n');
    expect(serviceLog).not.toContain(key.slice(13));
  });
});
