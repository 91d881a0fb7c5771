import { randomBytes } from 'node:crypto';
import { createPublicClient, http, type PublicClient, parseEther } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { tracingOn } from '../../src/tracing/tracing.ts';
import { bundlerClientFor, bundlerUrlOf, fund, generousFees, newSimpleAccount } from '../bundler/support.ts';
import { type OtlpReceiver, type ReceivedSpan, spanKinds, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { forwardTo, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { type Receiver, startReceiver } from '../webhooks/support.ts';

/** An address no other call names: the call's params must not reach any exported span. */
const lookedUp = '0x00000000000000000000000000000000c0ffee42';
const recipient = '0x000000000000000000000000000000000000beef';

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** A client's own trace: a fresh trace id and the id of the client's span. */
function clientTrace() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/** A counting proxy in front of the test's anvil that keeps each request's headers: the service's upstream. */
async function startRecordingUpstream(): Promise<{ upstream: TestRpcServer; target: { url: string } }> {
  const target = { url: '' };
  const upstream = await startRpcServer((body) => forwardTo(target.url)(body));
  return { upstream, target };
}

describe('traces: OpenTelemetry over OTLP/HTTP to a local receiver', () => {
  let otlp: OtlpReceiver;
  let hooks: Receiver;
  let upstream: TestRpcServer;
  let service: TestService;
  let key: string;
  let secret: string;
  const client = clientTrace();
  const rpcBody = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getBalance', params: [lookedUp, '0x0'] });
  let bundleTx: string | undefined;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startReceiver();
    const recording = await startRecordingUpstream();
    upstream = recording.upstream;
    service = await startTestService({
      settings: {
        tracing: { endpoint: otlp.url, service_name: 'blockyard-traces-test' },
        bundler_keys: devnetExecutorKeys[0],
        webhooks: { retry_schedule_s: [0.2] },
      },
      chainsFor: (anvilUrl) => {
        recording.target.url = anvilUrl;
        return [devnetChain(upstream.url, { indexer: { enabled: true }, bundler: { enabled: true } })];
      },
    });
    expect(tracingOn()).toBe(true);
    key = (await service.createKey()).key;

    // A JSON-RPC call with the client's traceparent and the key in the path; then the same again (a cache hit).
    for (let i = 0; i < 2; i++) {
      const answer = await service.rpc(undefined, rpcBody, `/v1/rpc/ethereum/devnet/${key}`, {
        traceparent: i === 0 ? client.header : clientTrace().header,
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { result: string }).result).toBe('0x0');
    }

    // A webhook on new blocks, then a block: an indexer round and a delivery.
    const created = await fetch(`${service.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hooks.url, chain: 'ethereum', event_type: 'new_block' }),
    });
    expect(created.status).toBe(201);
    secret = ((await created.json()) as { signing_secret: string }).signing_secret;
    await fetch(service.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    });
    await hooks.waitFor((requests) => requests.length > 0, 20_000, 'a delivery');

    // A UserOperation through the bundler: a bundle.
    await installErc4337Contracts(service.anvil.url);
    const publicClient = createPublicClient({ chain: foundry, transport: http(service.anvil.url) }) as PublicClient;
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const bundler = bundlerClientFor(bundlerUrlOf(service.url), key, publicClient);
    const hash = await bundler.sendUserOperation({
      account,
      calls: [{ to: recipient, value: 1n }],
      ...(await generousFees(publicClient)),
    });
    bundleTx = (await bundler.waitForUserOperationReceipt({ hash, timeout: 30_000 })).receipt.transactionHash;

    // The stop sends the spans still waiting in the batch.
    await service.stop();
  }, 180_000);
  afterAll(async () => {
    await otlp?.close();
    await hooks?.close();
    await upstream?.close();
  });

  const inTrace = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);
  const named = (name: string) => otlp.spans.filter((span) => span.name === name);

  it('exports OTLP/JSON to the receiver, as the configured service', () => {
    expect(otlp.refused).toBe(0);
    expect(otlp.spans.length).toBeGreaterThan(0);
    expect(new Set(otlp.spans.map((span) => span.serviceName))).toEqual(new Set(['blockyard-traces-test']));
    expect(tracingOn()).toBe(false);
  });

  it("continues the client's trace: the server span's parent is the client's span, the path's key masked", () => {
    const server = inTrace(client.traceId).find((span) => span.kind === spanKinds.server);
    expect(server, JSON.stringify(otlp.spans.map((span) => span.name))).toBeDefined();
    expect(server!.parentSpanId).toBe(client.spanId);
    expect(server!.name).toBe('POST /v1/rpc/:chain/:network/:apiKey');
    expect(server!.attributes['http.route']).toBe('/v1/rpc/:chain/:network/:apiKey');
    expect(server!.attributes['http.response.status_code']).toBe(200);
    expect(server!.attributes['url.path']).toMatch(/^\/v1\/rpc\/ethereum\/devnet\/svc_test_/);
    expect(server!.attributes['url.path']).not.toContain(key);
  });

  it('has a span for the JSON-RPC call with the cache lookup, and one per upstream attempt', () => {
    const spans = inTrace(client.traceId);
    const server = spans.find((span) => span.kind === spanKinds.server)!;
    const call = spans.find((span) => span.name === 'jsonrpc eth_getBalance');
    expect(call, JSON.stringify(spans.map((span) => span.name))).toBeDefined();
    expect(call!.parentSpanId).toBe(server.spanId);
    expect(call!.attributes).toMatchObject({
      'rpc.method': 'eth_getBalance',
      'blockyard.chain': 'ethereum',
      'blockyard.network': 'devnet',
    });
    expect(call!.events.find((event) => event.name === 'cache lookup')?.attributes['blockyard.cache']).toBe('miss');
    const attempts = spans.filter((span) => span.name === 'upstream attempt');
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    expect(attempts[0]!.kind).toBe(spanKinds.client);
    expect(attempts[0]!.parentSpanId).toBe(call!.spanId);
    // The upstream's label (host and port), never its URL: a provider's URL may carry its key.
    expect(attempts[0]!.attributes['blockyard.upstream']).toBe(new URL(upstream.url).host);
    // The second, identical call was answered from the cache: no attempt in its trace.
    const hit = named('jsonrpc eth_getBalance').find((span) => span.traceId !== client.traceId)!;
    expect(hit.events.find((event) => event.name === 'cache lookup')?.attributes['blockyard.cache']).toBe('hit');
    expect(inTrace(hit.traceId).filter((span) => span.name === 'upstream attempt')).toEqual([]);
  });

  it("passes the client's trace on to the upstream: the traceparent names the attempt's span", () => {
    const attempt = inTrace(client.traceId).find((span) => span.name === 'upstream attempt')!;
    const sent = upstream.seen
      .map((request) => traceparentPattern.exec(String(request.headers.traceparent ?? '')))
      .filter((found) => found !== null && found[1] === client.traceId);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.map((found) => found![2])).toContain(attempt.spanId);
    // Calls outside any trace (head polls) carry none.
    expect(upstream.seen.some((request) => request.method === 'eth_chainId' && request.headers.traceparent === undefined)).toBe(
      true,
    );
  });

  it('traces an indexer round', () => {
    const rounds = named('indexer round');
    expect(rounds.length).toBeGreaterThanOrEqual(1);
    expect(rounds[0]!.attributes['blockyard.network']).toBe('ethereum/devnet');
    // Background work is a trace of its own, whatever request or round woke its loop.
    for (const round of rounds) expect(round.parentSpanId).toBe('');
    expect(typeof rounds[0]!.attributes['blockyard.index.to']).toBe('number');
    // Its chain reads are attempts inside it.
    expect(inTrace(rounds[0]!.traceId).some((span) => span.name === 'upstream attempt')).toBe(true);
  });

  it('traces a webhook delivery, whose traceparent reaches the receiver', () => {
    const deliveries = named('webhook delivery');
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    const header = traceparentPattern.exec(String(hooks.requests[0]!.headers.traceparent ?? ''));
    expect(header, JSON.stringify(hooks.requests[0]!.headers)).not.toBeNull();
    const delivery = deliveries.find((span) => span.spanId === header![2])!;
    expect(delivery).toBeDefined();
    expect(delivery.traceId).toBe(header![1]);
    expect(delivery.kind).toBe(spanKinds.client);
    for (const span of deliveries) expect(span.parentSpanId).toBe('');
    expect(delivery.attributes).toMatchObject({
      'blockyard.event.type': 'new_block',
      'blockyard.delivery.ok': true,
      'http.response.status_code': 200,
    });
  });

  it('traces the bundle that carried the UserOperation', () => {
    // The bundler endpoint is a Fastify route (not the fast path): its server spans are named after it too.
    expect(named('POST /v1/bundler/:chain/:network').length).toBeGreaterThanOrEqual(1);
    const bundles = named('bundler bundle');
    expect(bundles.length).toBeGreaterThanOrEqual(1);
    const landed = bundles.find((span) => span.attributes['blockyard.bundle.tx'] === bundleTx);
    expect(landed, JSON.stringify(bundles.map((span) => span.attributes))).toBeDefined();
    expect(landed!.parentSpanId).toBe('');
    expect(landed!.attributes).toMatchObject({
      'blockyard.network': 'ethereum/devnet',
      'blockyard.bundle.ops': 1,
      'blockyard.bundle.sent': true,
    });
    expect(inTrace(landed!.traceId).some((span) => span.name === 'upstream attempt')).toBe(true);
  });

  it('exports no API key, webhook secret or request body, anywhere', () => {
    const everything = otlp.bodies.join('\n');
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice(-20));
    expect(everything).not.toContain(secret);
    expect(everything.toLowerCase()).not.toContain(lookedUp.slice(2));
    expect(everything).not.toContain(hooks.url);
    const values = otlp.spans.flatMap((span: ReceivedSpan) => [
      ...Object.values(span.attributes),
      ...span.events.flatMap((event) => Object.values(event.attributes)),
      span.status.message,
    ]);
    for (const value of values) expect(String(value)).not.toMatch(/"jsonrpc"|svc_(test|live)_[1-9A-HJ-NP-Za-km-z]{20,}|whsec_/);
  });
});

describe('traces: off by default', () => {
  let otlp: OtlpReceiver;
  let upstream: TestRpcServer;
  let service: TestService;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    const recording = await startRecordingUpstream();
    upstream = recording.upstream;
    service = await startTestService({
      chainsFor: (anvilUrl) => {
        recording.target.url = anvilUrl;
        return [devnetChain(upstream.url)];
      },
    });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await otlp?.close();
    await upstream?.close();
  });

  it("exports nothing and adds no traceparent upstream, nor passes a client's on", async () => {
    expect(tracingOn()).toBe(false);
    const { key } = await service.createKey();
    const answer = await service.rpc(
      key,
      { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [lookedUp, 'latest'] },
      undefined,
      {
        traceparent: clientTrace().header,
      },
    );
    expect(answer.status).toBe(200);
    expect(upstream.count('eth_getBalance')).toBeGreaterThanOrEqual(1);
    expect(upstream.seen.length).toBeGreaterThan(0);
    expect(upstream.seen.filter((request) => request.headers.traceparent !== undefined)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(otlp.spans).toEqual([]);
    expect(otlp.bodies).toEqual([]);
  });
});
