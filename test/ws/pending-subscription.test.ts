import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRaw } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

/**
 * The first client of a network's feed subscribes before the feed's upstream WebSocket is open: the
 * upstream subscription is made once it opens, without a warning (there was one, with a stack trace,
 * for every first `newPendingTransactions` subscription, though the subscription worked).
 */
describe('newPendingTransactions on a feed not yet connected', () => {
  let s: WsTestService;
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });

  beforeAll(async () => {
    s = await startWsTestService({ logDestination: destination, logLevel: 'warn' });
  });
  afterAll(() => s?.stop());

  it('delivers pending transaction hashes and logs no warning', async () => {
    const { key } = await s.t.createKey();
    // What the start logged (e.g. a slow database's LISTEN) is not this test's business.
    const before = lines.length;
    const client = await connectRaw(s.wsUrl(key));
    const subscribed = await client.call('eth_subscribe', ['newPendingTransactions']);
    expect(subscribed.result).toMatch(/^0x/);
    // The upstream subscription follows the feed's connection: send until one hash arrives (bounded).
    const deadline = Date.now() + 10_000;
    const sent: string[] = [];
    while (client.items(subscribed.result).length === 0 && Date.now() < deadline) {
      const [from] = (await s.anvilCall('eth_accounts')) as string[];
      sent.push((await s.anvilCall('eth_sendTransaction', [{ from, to: from, value: '0x1' }])) as string);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(sent).toContain(client.items(subscribed.result)[0]);
    client.close();
    expect(lines.slice(before).filter((line) => line.level >= 40)).toEqual([]);
  });
});
