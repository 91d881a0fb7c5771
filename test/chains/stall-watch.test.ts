import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStallWatch } from '../../src/chains/stall-watch.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';

/**
 * A node on 127.0.0.1 in a worker thread (so it answers while this thread is busy): `/after/<ms>`
 * answers after that many milliseconds, `/never` never does.
 */
const nodeSource = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = createServer((request, response) => {
  const delay = /^\\/after\\/(\\d+)$/.exec(request.url ?? '');
  if (delay) setTimeout(() => response.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}'), Number(delay[1]));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // The process is starved: nothing else runs on this thread meanwhile.
  }
}

const never = () => new Promise<string>(() => {});
const answersAfter =
  (ms: number, text = 'answer') =>
  () =>
    new Promise<string>((resolve) => setTimeout(() => resolve(text), ms));

describe('stall watch', () => {
  let node: Worker;
  let base: string;

  beforeAll(async () => {
    node = new Worker(nodeSource, { eval: true });
    const port = await new Promise<number>((resolve) => node.once('message', resolve));
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    node.postMessage('stop');
    await new Promise((resolve) => node.once('exit', resolve));
  });

  const ask = (path: string) => () => fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.text());

  it('fails every waiting call as a timeout when neither the call nor the probe is answered', async () => {
    const watch = createStallWatch({ probe: ask('/never'), suspectAfterMs: 50, probeTimeoutMs: 200 });
    const outcomes = await Promise.allSettled([watch.watch(never), watch.watch(never)]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as UpstreamError;
      expect(reason).toBeInstanceOf(UpstreamError);
      expect(reason.reason).toBe('timeout');
    }
  });

  it('never cuts a long call on a node that answers the probe', async () => {
    const watch = createStallWatch({ probe: ask('/after/5'), suspectAfterMs: 50, probeTimeoutMs: 200 });
    await expect(watch.watch(answersAfter(1_000, 'long'))).resolves.toBe('long');
  });

  it('takes an answer to another call during the probe as a sign of life', async () => {
    const watch = createStallWatch({ probe: ask('/never'), suspectAfterMs: 50, probeTimeoutMs: 300 });
    const long = watch.watch(answersAfter(1_000, 'long'));
    // Answered while the probe (sent at about 50 ms) is still waiting.
    await expect(watch.watch(answersAfter(200, 'short'))).resolves.toBe('short');
    await expect(long).resolves.toBe('long');
  });

  it('does not take a starved machine for a stalled node: a late deadline gives the probe another window', async () => {
    const watch = createStallWatch({
      probe: () => {
        // The node, as starved as this process, answers at 1.1 s; this thread is busy from 20 ms to ~1 s,
        // so the probe's 300 ms deadline fires about 700 ms late.
        const answer = ask('/after/1100')();
        setTimeout(() => busyFor(1_000), 20);
        return answer;
      },
      suspectAfterMs: 50,
      probeTimeoutMs: 300,
    });
    await expect(watch.watch(answersAfter(2_000, 'long'))).resolves.toBe('long');
  });

  it('suspects a head poll sooner than another call: a stopped node is found soon after its next poll', async () => {
    const watch = createStallWatch({ probe: ask('/never'), suspectAfterMs: 5_000, pollSuspectAfterMs: 50, probeTimeoutMs: 200 });
    const other = watch.watch(never);
    const startedAt = performance.now();
    await expect(watch.watch(never, { poll: true })).rejects.toMatchObject({ reason: 'timeout' });
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    // Every call waiting on the stalled node fails with it.
    await expect(other).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('reports once that a node taken for stalled answered after all (its probe, then a call it was sent)', async () => {
    let answeredAfterStall = 0;
    const watch = createStallWatch({
      probe: ask('/after/600'),
      suspectAfterMs: 50,
      probeTimeoutMs: 200,
      starvedAfterMs: 1_000,
      onAnsweredAfterStall: () => answeredAfterStall++,
    });
    const late = answersAfter(900, 'late');
    await expect(watch.watch(late)).rejects.toMatchObject({ reason: 'timeout' });
    expect(answeredAfterStall).toBe(0);
    // The probe answers at about 600 ms, the abandoned call at 900 ms: one report.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(answeredAfterStall).toBe(1);
  });

  it('takes no failed call or probe for an answer after a stall: a stopped node ends in errors too', async () => {
    let answeredAfterStall = 0;
    const failsAfter = (ms: number) => () =>
      new Promise<string>((_resolve, reject) => setTimeout(() => reject(new Error('connection reset')), ms));
    const watch = createStallWatch({
      probe: failsAfter(600),
      suspectAfterMs: 50,
      probeTimeoutMs: 200,
      starvedAfterMs: 1_000,
      onAnsweredAfterStall: () => answeredAfterStall++,
    });
    await expect(watch.watch(failsAfter(900))).rejects.toMatchObject({ reason: 'timeout' });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(answeredAfterStall).toBe(0);
  });

  it('never cuts a slow head poll of a node that answers the probe', async () => {
    const watch = createStallWatch({ probe: ask('/after/5'), pollSuspectAfterMs: 50, probeTimeoutMs: 200 });
    await expect(watch.watch(answersAfter(1_000, 'slow poll'), { poll: true })).resolves.toBe('slow poll');
  });
});
