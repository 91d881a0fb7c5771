import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/log-lines.ts';
import { accessLogWritten, startTestService, type TestService } from '../support/service.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

/** An API key past the 13 characters logs may show (`svc_test_` and 4). */
const fullApiKey = /svc_(?:test|live)_[A-Za-z0-9]{5,}/;

const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

/**
 * `/%761/rpc/…/%73vc_test_…` and `/v1/%72pc/…` are the router's `/v1/rpc/…/svc_test_…`: they are
 * served, and were logged with the whole key (the mask read the path as text). The log now masks what
 * the router reads, whatever the spelling, and shows the URL decoded.
 */
describe('a key in a path (or query) that percent-encodes unreserved characters', () => {
  const log = captureLog();
  let t: TestService;
  let key: string;
  beforeAll(async () => {
    t = await startTestService({ logDestination: log.destination, logLevel: 'info' });
    key = (await t.createKey()).key;
  }, 60_000);
  afterAll(() => t?.stop());

  const send = async (method: string, path: string) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
      body: method === 'POST' ? JSON.stringify(call) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, text: await response.text() };
  };
  /** The key with its first character (`s`) percent-encoded: `%73vc_test_…`. */
  const encodedKey = () => `%73${key.slice(1)}`;
  /** The secret part of the key: what no log line may hold, in any spelling. */
  const secret = () => key.slice(13);

  it('is served as the canonical spelling is, and no log line holds the key', async () => {
    const served = [
      `/%761/rpc/ethereum/devnet/${encodedKey()}`,
      `/v1/%72pc/ethereum/devnet/${key}`,
      `/v1/rpc/ethereum/devnet/${key.replace(/_/g, '%5f')}`,
    ];
    for (const path of served) {
      const answer = await send('POST', path);
      expect(answer.status, path).toBe(200);
      expect(JSON.parse(answer.text).result).toBe('0x7a69');
    }
    // Refused and unrouted requests are logged too: a bad key, a wrong route, a key in the query.
    const unknown = `%73vc_test_${'A'.repeat(44)}`;
    expect((await send('POST', `/%761/rpc/ethereum/devnet/${unknown}`)).status).toBe(401);
    await send('POST', `/%761/nothing/${encodedKey()}`);
    await send('POST', `/v1/bundler/ethereum/devnet/${encodedKey()}`);
    await send('GET', `/v1/rpc/ethereum/devnet?%61piKey=${encodedKey()}`);
    await send('GET', `/%64ashboard/sign-in/${encodedKey()}`);
    await accessLogWritten();
    const text = log.lines.map((line) => JSON.stringify(line)).join('\n');
    expect(text).not.toContain(secret());
    expect(text).not.toContain(unknown.slice(13));
    expect(fullApiKey.exec(text)?.[0]).toBeUndefined();
    const urls = log.lines.filter((line) => line.msg === 'request').map((line) => line.req.url as string);
    expect(urls).toContain(`/v1/rpc/ethereum/devnet/${key.slice(0, 13)}…`);
    expect(urls).toContain('/v1/rpc/ethereum/devnet?apiKey=[redacted]');
    expect(urls).toContain('/dashboard/sign-in/[redacted]');
  });

  it('an unrouted /v1 path in any spelling is authenticated first, as /v1 is: no key is 401', async () => {
    expect((await send('POST', '/%761/nothing')).status).toBe(401);
  });

  it('the WebSocket reads the path as the router does: the encoded key opens the socket', async () => {
    const base = t.url.replace('http://', 'ws://');
    const ws = await connectRaw(`${base}/%761/ws/ethereum/%64evnet/${encodedKey()}`);
    try {
      expect((await ws.call('eth_chainId', [])).result).toBe('0x7a69');
    } finally {
      ws.close();
    }
  });
});
