import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { readNeedOf } from '../../src/chains/read-need.ts';
import { startTracing } from '../../src/tracing/start-tracing.ts';
import { inSpan } from '../../src/tracing/tracing.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { call, createPoolFixture, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp());

describe('a hedged read, traced', () => {
  it('shows the hedge as an event of the call and each attempt as a span whose traceparent reached its node', async () => {
    const otlp = await startOtlpReceiver();
    const tracing = await startTracing(
      { tracesUrl: `${otlp.url}/v1/traces`, serviceName: 'hedge-test', sampleRatio: 1, origin: 'test' },
      pino({ level: 'silent' }),
    );
    try {
      // The read of block 16 goes first to the node that has it (slow); the hedge, after 10 ms, to the
      // other (quick, but two blocks behind: its null waits for the first node's answer).
      const slow = await fixture.blockNode(16, 150);
      const fast = await fixture.blockNode(14, 0);
      const pool = fixture.pool([], {
        upstreams: [slow.url, fast.url].map((url) => ({ url, timeoutMs: 2_000, batchMaxSize: 1 })),
        hedge: { minSamples: 0, floorMs: 10 },
        chainId: 31337,
      });
      await pool.identified();
      await pool.heads.pollNow();
      const params = ['0x10', false];
      const answer = await inSpan('test call', {}, () =>
        pool.send(call('eth_getBlockByNumber', params), readNeedOf('eth_getBlockByNumber', params)),
      );
      expect(resultOf(answer)).toEqual({ number: '0x10' });
      // The slow node's attempt ends after the answer: its span is sent once it has.
      await sleep(300);
    } finally {
      await tracing.stop();
      await otlp.close();
    }

    const parent = otlp.spans.find((span) => span.name === 'test call')!;
    expect(parent).toBeDefined();
    const hedge = parent.events.find((event) => event.name === 'upstream hedge');
    expect(hedge, JSON.stringify(parent.events)).toBeDefined();
    const [slowLabel, fastLabel] = fixture.servers().map((server) => new URL(server.url).host);
    expect(hedge!.attributes['blockyard.upstream']).toBe(fastLabel);
    const attempts = otlp.spans.filter((span) => span.traceId === parent.traceId && span.name === 'upstream attempt');
    expect(attempts.map((span) => span.attributes['blockyard.upstream']).sort()).toEqual([slowLabel, fastLabel].sort());
    for (const attempt of attempts) expect(attempt.parentSpanId).toBe(parent.spanId);
    // Each node got the traceparent of its own attempt; the head polls and identity checks, outside any trace, none.
    for (const server of fixture.servers()) {
      const traced = server.seen.filter((request) => request.headers.traceparent !== undefined);
      expect(traced.map((request) => request.method)).toEqual(['eth_getBlockByNumber']);
      const label = new URL(server.url).host;
      const attempt = attempts.find((span) => span.attributes['blockyard.upstream'] === label)!;
      expect(traced[0]!.headers.traceparent).toBe(`00-${parent.traceId}-${attempt.spanId}-01`);
    }
  });
});
