import type { Writable } from 'node:stream';

/**
 * One subscription item (a head, a log, a pending transaction hash, a syncing state), serialized once
 * and shared by every subscriber: each one's message is its own prefix followed by the same bytes.
 */
export interface FeedItem {
  /** `<result JSON>}}`: everything after a subscription's prefix. */
  readonly tail: Buffer;
  /** The frame header for a prefix of `prefixLength` bytes (computed once per length, then reused). */
  header(prefixLength: number): Buffer;
}

/**
 * Sends one item (serialized once, shared by every subscriber) to one subscriber; true when it was
 * written, false when the connection is closing or was just closed as a slow consumer.
 */
export type Deliver = (item: FeedItem) => boolean;

/** An item from its result's JSON text (one `JSON.stringify` per item, however many subscribers). */
export function createFeedItem(json: string): FeedItem {
  const tail = Buffer.from(`${json}}}`);
  // Subscription ids all have one length, so every subscriber of an item needs the same header.
  let headerFor = -1;
  let header: Buffer | undefined;
  return {
    tail,
    header(prefixLength) {
      if (header === undefined || prefixLength !== headerFor) {
        header = textFrameHeader(prefixLength + tail.length);
        headerFor = prefixLength;
      }
      return header;
    },
  };
}

/** What precedes the result in every item of one subscription: built once, when it is created. */
export function subscriptionPrefix(subscription: string): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscription)},"result":`,
  );
}

/**
 * The header of one final, unmasked text frame carrying `length` payload bytes (RFC 6455 5.2: a
 * server never masks; the length takes 7 bits, or 126 + 16 bits, or 127 + 64 bits).
 */
export function textFrameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, length]);
  if (length < 0x10000) return Buffer.from([0x81, 126, length >>> 8, length & 0xff]);
  const header = Buffer.alloc(10);
  header[0] = 0x81;
  header[1] = 127;
  header.writeUIntBE(length, 4, 6);
  return header;
}

/**
 * Writes one subscription message as a single frame straight to the connection's socket: three
 * shared buffers in one corked write (one writev), nothing copied or allocated by us. Only safe where
 * `ws` itself writes every frame synchronously and whole: no permessage-deflate on the connection
 * (the endpoint turns it off), so its sender never queues, and ours cannot land inside one of its frames.
 */
export function writeSubscriptionFrame(socket: Writable, prefix: Buffer, item: FeedItem): void {
  socket.cork();
  socket.write(item.header(prefix.length));
  socket.write(prefix);
  socket.write(item.tail);
  socket.uncork();
}
