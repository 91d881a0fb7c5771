import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { readNeedOf } from '../../src/chains/read-need.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';
import { freeze } from '../support/freeze.ts';
import { answeringChainId, forwardTo, type RpcServerAnswer, rpcAnswer, startRpcServer } from '../support/rpc-server.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp(), 30_000);

/** Runtime code that reverts every call: PUSH1 0 PUSH1 0 REVERT. */
const revertingCode = '0x60006000fd';
const reverter = '0x00000000000000000000000000000000000b10c5';
// Hedging is a second request by design; it is off here so that the counts measure retries only.
const noHedge = { hedge: { minSamples: Number.MAX_SAFE_INTEGER } };

describe('upstream pool: what is retried and what is not', () => {
  it.each([
    ['a revert', call('eth_call', [{ to: reverter, data: '0x' }, 'latest']), 3],
    ['invalid params', call('eth_getBalance', ['0x1234']), -32602],
    ['an unknown method', call('eth_noSuchMethod'), -32601],
  ])('returns %s unchanged after one request, never retried', async (_, body, code) => {
    const anvils = await fixture.anvils(2);
    await Promise.all(anvils.map((anvil) => direct(anvil.url, call('anvil_setCode', [reverter, revertingCode]))));
    const counters = await Promise.all(anvils.map(async (anvil) => fixture.server(await startRpcServer(forwardTo(anvil.url)))));
    const pool = fixture.pool(
      counters.map((counter) => counter.url),
      noHedge,
    );
    const method = (JSON.parse(body) as { method: string }).method;

    const answer = await pool.send(body);
    expect(JSON.parse(answer).error.code).toBe(code);
    expect(answer).toBe(await direct(anvils[0]!.url, body));
    expect(counters.reduce((sum, counter) => sum + counter.count(method), 0)).toBe(1);
  });

  const failing: [string, (body: string) => RpcServerAnswer][] = [
    ['HTTP 429', () => ({ status: 429, body: 'Too Many Requests' })],
    ['HTTP 503', () => ({ status: 503, body: '<html>Service Unavailable</html>' })],
    [
      'HTTP 500 with a JSON-RPC body',
      (body) => ({ status: 500, body: rpcAnswer(body, { error: { code: -32603, message: 'x' } }) }),
    ],
    ['"header not found"', (body) => ({ body: rpcAnswer(body, { error: { code: -32000, message: 'header not found' } }) })],
    ['-32005 limit exceeded', (body) => ({ body: rpcAnswer(body, { error: { code: -32005, message: 'limit exceeded' } }) })],
  ];
  it.each(failing)('fails over from a node answering %s', async (_, answer) => {
    const [anvil] = await fixture.anvils(1);
    // Only the call under test fails: the identity check and head polls pass, so the node is in the pool.
    const bad = fixture.server(
      await startRpcServer(
        answeringChainId(31337, async (body, method) => (method === 'net_version' ? answer(body) : forwardTo(anvil!.url)(body))),
      ),
    );
    // The good node answers 30 ms slower than the bad one, so the bad one is tried first.
    const slow = fixture.server(
      await startRpcServer(async (body) => {
        await sleep(30);
        return forwardTo(anvil!.url)(body);
      }),
    );
    const pool = fixture.pool([bad.url, slow.url], noHedge);
    await pool.identified();
    const need = readNeedOf('net_version', []);
    for (let i = 0; i < 5; i++) expect(resultOf(await pool.send(call('net_version', [], i), need))).toBe('31337');
    expect(bad.count('net_version')).toBeGreaterThanOrEqual(1);
  });

  it('returns the node answer when every node says it is behind', async () => {
    const lagging = await Promise.all(
      [1, 2].map(async () =>
        fixture.server(
          await startRpcServer(
            answeringChainId(31337, async (body) => ({
              body: rpcAnswer(body, { error: { code: -32000, message: 'header not found' } }),
            })),
          ),
        ),
      ),
    );
    const pool = fixture.pool(
      lagging.map((server) => server.url),
      noHedge,
    );
    const body = call('eth_getBlockByNumber', ['0x10', false], 9);
    expect(await pool.send(body)).toBe(rpcAnswer(body, { error: { code: -32000, message: 'header not found' } }));
    expect(lagging.map((server) => server.count('eth_getBlockByNumber'))).toEqual([1, 1]);
  });

  it('rejects with the transport failure when every upstream fails, after at most maxAttempts tries', async () => {
    const servers = await Promise.all(
      [1, 2, 3, 4].map(async () =>
        fixture.server(await startRpcServer(answeringChainId(31337, async () => ({ status: 503, body: 'down' })))),
      ),
    );
    const pool = fixture.pool(
      servers.map((server) => server.url),
      { maxAttempts: 3, headPollMs: 60_000 },
    );
    await pool.identified();
    const failure = await pool.send(call('eth_getBalance', [reverter, '0x1'])).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).reason).toBe('http_status');
    expect(servers.reduce((sum, server) => sum + server.count('eth_getBalance'), 0)).toBe(3);
  });

  it("rejects a verified lone upstream's failure as that failure, not as a method no upstream serves", async () => {
    const server = fixture.server(await startRpcServer(answeringChainId(31337, async () => ({ status: 503, body: 'down' }))));
    const pool = fixture.pool([server.url], { headPollMs: 60_000 });
    await pool.identified();
    const failure = await pool.send(call('eth_getBalance', [reverter, '0x1'])).catch((error: unknown) => error);
    expect((failure as UpstreamError).reason).toBe('http_status');
  });

  it('fails fast once every breaker is open, naming the open breakers and the failure that opened them', async () => {
    const pool = fixture.pool(['http://127.0.0.1:1', 'http://127.0.0.1:2'], {
      breaker: { failureThreshold: 1, cooldownMs: 60_000 },
      headPollMs: 60_000,
    });
    await pool.heads.pollNow();
    expect(pool.hasHealthyUpstream()).toBe(false);
    const failure = await pool.send(call('eth_chainId')).catch((error: unknown) => error);
    expect((failure as UpstreamError).reason).toBe('circuit_open');
    expect((failure as UpstreamError).message).toContain('are open after repeated failures (last: connection)');
    const write = await pool.broadcast(call('eth_sendRawTransaction', ['0x00'])).catch((error: unknown) => error);
    expect((write as UpstreamError).reason).toBe('circuit_open');
  });

  it("refuses while every verified upstream's breaker is open saying so, and when one is tried again (not the failure that opened it)", async () => {
    const anvils = await fixture.anvils(2);
    const pool = fixture.pool(
      anvils.map((anvil) => anvil.url),
      { breaker: { failureThreshold: 1, cooldownMs: 60_000 }, headPollMs: 60_000 },
    );
    await pool.identified();
    // Stopped: connections accepted, nothing answered; the head poll times out and trips both breakers.
    for (const anvil of anvils) freeze(anvil.pid);
    await pool.heads.pollNow();
    expect(pool.stats().map((upstream) => upstream.breaker)).toEqual(['open', 'open']);
    const failures = [
      await pool.send(call('eth_getBalance', [reverter, 'latest'])).catch((error: unknown) => error),
      await pool.broadcast(call('eth_sendRawTransaction', ['0x00'])).catch((error: unknown) => error),
    ] as UpstreamError[];
    for (const failure of failures) {
      expect(failure.reason).toBe('circuit_open');
      expect(failure.message).toMatch(
        /^the circuit breaker of all 2 upstreams of ethereum\/devnet are open after repeated failures \(last: timeout\); the first is tried again in (59|60) s$/,
      );
      expect(failure.retryAfterMs).toBeGreaterThan(55_000);
    }
  }, 30_000);
});
