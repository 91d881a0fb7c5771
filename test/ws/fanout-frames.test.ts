import { createPublicClient, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import * as wsPackage from 'ws';
import { subscriptionPrefix, textFrameHeader } from '../../src/ws/subscription-frame.ts';
import { connectFrameClient, type FrameClient, type WireFrame } from './support/frame-client.ts';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

/** ws's own framer (exported at runtime, absent from its types): the reference for our headers. */
const wsSender = (wsPackage as unknown as { Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] } }).Sender;

const suffix = Buffer.from('}}');

/**
 * What one subscription's item frame carries between its own prefix and `}}`, after checking that
 * the payload is exactly prefix + result + `}}`.
 */
function resultBytes(payload: Buffer, subscription: string): Buffer {
  const prefix = subscriptionPrefix(subscription);
  expect(payload.subarray(0, prefix.length).equals(prefix), 'payload starts with the subscription prefix').toBe(true);
  expect(payload.subarray(payload.length - 2).equals(suffix), 'payload ends with }}').toBe(true);
  return payload.subarray(prefix.length, payload.length - 2);
}

/** The result bytes of `frame` when it is an item of `subscription`. */
function itemOf(frame: WireFrame, subscription: string): Buffer | undefined {
  if (
    frame.opcode !== 0x1 ||
    !frame.payload.subarray(0, subscriptionPrefix(subscription).length).equals(subscriptionPrefix(subscription))
  ) {
    return undefined;
  }
  return resultBytes(frame.payload, subscription);
}

const numberOf = (result: Buffer) => Number((JSON.parse(result.toString()) as { number: string }).number);

/** The items of one subscription, by block number of their result. */
function headsOf(client: FrameClient, subscription: string): Map<number, Buffer> {
  const heads = new Map<number, Buffer>();
  for (const frame of client.frames) {
    const result = itemOf(frame, subscription);
    if (result) heads.set(numberOf(result), result);
  }
  return heads;
}

describe('subscription items written straight to the socket', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  const blockNumber = async () => Number(await s.anvilCall('eth_blockNumber'));
  const messagesOut = () => s.metric('blockyard_ws_messages_out_total');

  it('frame headers are the ones ws itself builds, for every length encoding', () => {
    for (const length of [0, 1, 125, 126, 127, 1_000, 65_535, 65_536, 300_000]) {
      const [reference] = wsSender.frame(Buffer.alloc(length), {
        fin: true,
        opcode: 1,
        mask: false,
        readOnly: false,
        rsv1: false,
      });
      expect(textFrameHeader(length), `length ${length}`).toEqual(reference);
    }
  });

  it('many subscribers (raw frames, ws, viem) get each head as the same bytes behind their own prefix; answers interleave whole', async () => {
    const frameClients = await Promise.all(Array.from({ length: 24 }, () => connectFrameClient(s.wsUrl(key))));
    const frameIds = await Promise.all(
      frameClients.map(async (client) => [(await client.call('eth_subscribe', ['newHeads'])).result as string]),
    );
    // One connection with two subscriptions: each item once per subscription, each with its own prefix.
    frameIds[0]!.push((await frameClients[0]!.call('eth_subscribe', ['newHeads'])).result as string);
    const wsClients = await Promise.all(Array.from({ length: 24 }, () => connectRaw(s.wsUrl(key))));
    const wsIds = await Promise.all(
      wsClients.map(async (client) => (await client.call('eth_subscribe', ['newHeads'])).result as string),
    );
    const wsTexts = wsClients.map((client) => {
      const texts: string[] = [];
      client.ws.on('message', (data) => void texts.push(String(data)));
      return texts;
    });
    const viems = Array.from({ length: 2 }, () =>
      createPublicClient({ chain: foundry, transport: webSocket(s.wsUrl(key), { retryCount: 0, keepAlive: false }) }),
    );
    const viemItems: { subscription: string; result: unknown }[][] = [[], []];
    const viemIds = await Promise.all(
      viems.map(async (client, index) => {
        const { subscriptionId } = await client.transport.subscribe({
          params: ['newHeads'],
          onData: (data) => void viemItems[index]!.push(data as unknown as { subscription: string; result: unknown }),
        });
        return subscriptionId;
      }),
    );
    const subscribers = frameClients.length + 1 + wsClients.length + viems.length;
    await eventually(async () =>
      (await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) === subscribers ? true : undefined,
    );
    const framesBefore = frameClients.map((client) => client.frames.length);
    const outBefore = await messagesOut();

    const first = (await blockNumber()) + 1;
    const chainIdAnswers: unknown[] = [];
    for (let block = 0; block < 3; block++) {
      await s.anvilCall('evm_mine');
      // Proxied calls answered (framed by ws) while items (written by the feed) arrive on the same sockets.
      const answers = await Promise.all(frameClients.map((client) => client.call('eth_chainId')));
      chainIdAnswers.push(...answers.map((answer) => answer.result));
    }
    const last = first + 2;
    await eventually(
      () =>
        frameClients.every((client, index) => frameIds[index]!.every((id) => headsOf(client, id).has(last))) &&
        wsTexts.every((texts) => texts.some((text) => text.includes(`"number":"0x${last.toString(16)}"`))) &&
        viemItems.every((items) => items.length >= 3)
          ? true
          : undefined,
      15_000,
    );

    for (const client of frameClients) expect(client.violations).toEqual([]);
    expect(chainIdAnswers).toEqual(Array(chainIdAnswers.length).fill('0x7a69'));
    for (let number = first; number <= last; number++) {
      const reference = headsOf(frameClients[0]!, frameIds[0]![0]!).get(number)!;
      const block = (await s.anvilCall('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as Record<string, unknown>;
      const head = JSON.parse(reference.toString()) as Record<string, unknown>;
      expect(head).toMatchObject({
        number: block.number,
        hash: block.hash,
        parentHash: block.parentHash,
        timestamp: block.timestamp,
      });
      expect(JSON.stringify(head)).toBe(reference.toString());
      frameClients.forEach((client, index) => {
        for (const id of frameIds[index]!)
          expect(headsOf(client, id).get(number)?.equals(reference), `frame client ${index}`).toBe(true);
      });
      wsTexts.forEach((texts, index) => {
        const text = texts.find((t) => t.includes(`"number":"0x${number.toString(16)}"`))!;
        expect(resultBytes(Buffer.from(text), wsIds[index]!).equals(reference), `ws client ${index}`).toBe(true);
      });
      viemItems.forEach((items, index) => {
        const item = items.find((i) => (i.result as { number: string }).number === block.number);
        expect(item).toEqual({ subscription: viemIds[index], result: head });
      });
    }

    // The counter is exact: every message written reached a client, none was counted twice.
    const received =
      // Text frames only: a keepalive ping (opcode 0x9) may come at any time and is no message.
      frameClients.reduce(
        (sum, client, index) => sum + client.frames.slice(framesBefore[index]).filter((frame) => frame.opcode === 0x1).length,
        0,
      ) +
      wsTexts.reduce((sum, texts) => sum + texts.length, 0) +
      viemItems.reduce((sum, items) => sum + items.length, 0);
    expect((await messagesOut()) - outBefore).toBe(received);

    for (const client of frameClients) client.close();
    for (const client of wsClients) client.close();
    for (const client of viems) await (await client.transport.getRpcClient()).close();
    await eventually(async () => ((await s.metric('blockyard_ws_connections')) === 0 ? true : undefined));
  }, 60_000);

  it('a slow consumer gets whole frames up to a 4008 close frame while the others keep receiving', async () => {
    const slow = await connectFrameClient(s.wsUrl(key));
    const fast = await connectFrameClient(s.wsUrl(key));
    const other: RawClient = await connectRaw(s.wsUrl(key));
    // 100 subscriptions (the cap) to the same heads: about 100 items per block for the slow client.
    const slowIds = await Promise.all(
      Array.from({ length: 100 }, async () => (await slow.call('eth_subscribe', ['newHeads'])).result as string),
    );
    const fastId = (await fast.call('eth_subscribe', ['newHeads'])).result as string;
    const otherId = (await other.call('eth_subscribe', ['newHeads'])).result as string;
    const closesBefore = await s.metric('blockyard_ws_server_closes_total', { reason: 'slow_consumer' });
    const outBefore = await messagesOut();
    const framesBefore = { slow: slow.frames.length, fast: fast.frames.length, other: other.messages.length };

    // The slow client stops reading: the kernel's buffers fill, then the server's, up to the bound.
    slow.socket.pause();
    await eventually(async () => {
      if ((await s.metric('blockyard_ws_server_closes_total', { reason: 'slow_consumer' })) > closesBefore) return true;
      await s.anvilCall('anvil_mine', ['0x20']);
      return undefined;
    }, 25_000);
    await s.anvilCall('evm_mine');
    const target = await blockNumber();
    await fast.waitFor((frame) => {
      const result = itemOf(frame, fastId);
      return result !== undefined && numberOf(result) === target;
    }, 10_000);
    await eventually(() => (other.items(otherId).some((head) => Number(head.number) === target) ? true : undefined));

    slow.socket.resume();
    const close = await slow.waitFor((frame) => frame.opcode === 0x8, 10_000);
    expect(close.payload.readUInt16BE(0)).toBe(4008);
    expect(close.payload.subarray(2).toString()).toMatch(/slow consumer/);
    expect(slow.violations).toEqual([]);
    expect(fast.violations).toEqual([]);

    // Every item the slow client got, even those that waited in the server's buffer, is byte for byte
    // what the fast client got for that head, behind the slow subscription's own prefix.
    const fastHeads = headsOf(fast, fastId);
    let slowItems = 0;
    for (const id of slowIds) {
      const heads = headsOf(slow, id);
      const numbers = [...heads.keys()];
      expect(numbers).toEqual(numbers.map((_, index) => numbers[0]! + index));
      for (const [number, bytes] of heads) expect(bytes.equals(fastHeads.get(number)!), `head ${number}`).toBe(true);
      slowItems += heads.size;
    }
    expect(slowItems).toBeGreaterThan(slowIds.length);
    // Nothing but those items came after the subscription answers.
    expect(slow.frames.slice(framesBefore.slow).filter((frame) => frame.opcode === 0x1)).toHaveLength(slowItems);

    // Written messages are counted exactly, the slow client's included (it read them all before the close).
    const received =
      slow.frames.slice(framesBefore.slow).filter((frame) => frame.opcode === 0x1).length +
      fast.frames.slice(framesBefore.fast).filter((frame) => frame.opcode === 0x1).length +
      other.messages.length -
      framesBefore.other;
    expect((await messagesOut()) - outBefore).toBe(received);

    slow.close();
    fast.close();
    other.close();
  }, 60_000);
});
