import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** One frame exactly as the server put it on the wire. */
export interface WireFrame {
  opcode: number;
  /** Header and payload, byte for byte. */
  bytes: Buffer;
  payload: Buffer;
}

/**
 * A WebSocket client of plain TCP for tests: it does the handshake itself and parses every byte
 * the server sends under RFC 6455's rules for a server (final frames only, no mask, no RSV bits,
 * the shortest length encoding), recording anything else as a violation instead of repairing it.
 */
export interface FrameClient {
  readonly socket: Socket;
  readonly frames: WireFrame[];
  /** Every rule the server's bytes broke; a well-behaved server leaves this empty. */
  readonly violations: string[];
  /** Sends a masked text frame, as a client must. */
  send(value: unknown): void;
  /** Sends a JSON-RPC call and resolves with the parsed answer carrying its id. */
  call(method: string, params?: unknown[]): Promise<{ id: number; result?: unknown; error?: unknown }>;
  /** Data frames (text) parsed as JSON, in arrival order. */
  messages(): unknown[];
  /** The first frame (seen or yet to come) that matches, within `timeoutMs`. */
  waitFor(match: (frame: WireFrame) => boolean, timeoutMs?: number): Promise<WireFrame>;
  close(): void;
}

const guid = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
let nextId = 1;

export async function connectFrameClient(url: string, timeoutMs = 10_000): Promise<FrameClient> {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  socket.on('error', () => {});
  const key = randomBytes(16).toString('base64');
  const frames: WireFrame[] = [];
  const violations: string[] = [];
  const waiters = new Set<() => void>();
  let pending = Buffer.alloc(0);
  let upgraded = false;

  const opened = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 101 answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (!upgraded) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        pending = pending.subarray(end + 4);
        clearTimeout(timer);
        const accept = createHash('sha1')
          .update(key + guid)
          .digest('base64');
        if (!head.startsWith('HTTP/1.1 101 ')) return reject(new Error(`upgrade answered: ${head.split('\r\n')[0]}`));
        if (!head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`))
          violations.push('wrong Sec-WebSocket-Accept');
        if (/sec-websocket-extensions/i.test(head)) violations.push(`an extension was negotiated: ${head}`);
        upgraded = true;
        resolve();
      }
      parseFrames();
      for (const wake of waiters) wake();
    });
  });

  const parseFrames = () => {
    for (;;) {
      if (pending.length < 2) return;
      const first = pending[0]!;
      const second = pending[1]!;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
        if (length < 126) violations.push(`16-bit length for ${length} bytes`);
      } else if (length === 127) {
        if (pending.length < 10) return;
        length = Number(pending.readBigUInt64BE(2));
        offset = 10;
        if (length < 0x10000) violations.push(`64-bit length for ${length} bytes`);
      }
      if (pending.length < offset + length) return;
      const opcode = first & 0x0f;
      if ((first & 0x80) === 0) violations.push('a fragment (FIN not set)');
      if ((first & 0x70) !== 0) violations.push('RSV bits set');
      if ((second & 0x80) !== 0) violations.push('a masked server frame');
      if (![0x1, 0x8, 0x9, 0xa].includes(opcode)) violations.push(`opcode ${opcode}`);
      if (frames.some((frame) => frame.opcode === 0x8)) violations.push('a frame after the close frame');
      const bytes = Buffer.from(pending.subarray(0, offset + length));
      frames.push({ opcode, bytes, payload: bytes.subarray(offset) });
      pending = pending.subarray(offset + length);
    }
  };

  const send = (value: unknown) => {
    const payload = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
    const mask = randomBytes(4);
    const header =
      payload.length < 126
        ? Buffer.from([0x81, 0x80 | payload.length])
        : Buffer.from([0x81, 0x80 | 126, payload.length >>> 8, payload.length & 0xff]);
    const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!));
    socket.write(Buffer.concat([header, mask, masked]));
  };

  const waitFor = (match: (frame: WireFrame) => boolean, waitMs = 10_000) =>
    new Promise<WireFrame>((resolve, reject) => {
      const check = () => {
        const found = frames.find(match);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching frame within ${waitMs} ms; ${frames.length} frames so far`));
      }, waitMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  socket.write(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await opened;

  return {
    socket,
    frames,
    violations,
    send,
    async call(method, params = []) {
      const id = nextId++;
      send({ jsonrpc: '2.0', id, method, params });
      const frame = await waitFor((f) => f.opcode === 0x1 && (JSON.parse(f.payload.toString()) as { id?: unknown }).id === id);
      return JSON.parse(frame.payload.toString());
    },
    messages: () => frames.filter((frame) => frame.opcode === 0x1).map((frame) => JSON.parse(frame.payload.toString())),
    waitFor,
    close: () => socket.destroy(),
  };
}
