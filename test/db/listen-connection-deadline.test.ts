import { createServer, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type ListenConnection, startListenConnection } from '../../src/db/listen-connection.ts';

/**
 * A server that speaks just enough of the Postgres protocol for a LISTEN session: it accepts the
 * startup (no password), then for each connection either answers the LISTEN or, like a server that
 * stopped right after accepting the session (SIGSTOP, a frozen host), never answers it.
 */
interface FakePostgres {
  readonly url: string;
  /** Connections opened so far. */
  readonly connections: number;
  /** Ends every open connection (as a server restart does). */
  dropAll(): void;
  close(): Promise<void>;
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const authenticationOk = message('R', Buffer.from([0, 0, 0, 0]));
const readyForQuery = message('Z', Buffer.from('I', 'latin1'));
const listenComplete = message('C', Buffer.from('LISTEN\0', 'latin1'));

async function startFakePostgres(answersListen: (connection: number) => boolean): Promise<FakePostgres> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    const index = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let started = false;
    socket.on('data', (chunk) => {
      if (!started) {
        // The startup message (length, protocol, parameters): the session is open at once.
        started = true;
        socket.write(Buffer.concat([authenticationOk, readyForQuery]));
        return;
      }
      if (chunk[0] === 0x51 /* 'Q' */ && answersListen(index)) socket.write(Buffer.concat([listenComplete, readyForQuery]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://user@127.0.0.1:${port}/db`,
    get connections() {
      return connections;
    },
    dropAll() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const logger = pino({ level: 'silent' });
let fake: FakePostgres | undefined;
let listening: ListenConnection | undefined;
afterEach(async () => {
  await listening?.close();
  await fake?.close();
  listening = undefined;
  fake = undefined;
});

/** Issue 23, item 5: a LISTEN the server never answers must not leave the connection waiting for ever. */
describe('LISTEN connection: a server that accepts the session and never answers the LISTEN', () => {
  it('fails the first connection within its deadline (a start on a stopped server)', async () => {
    fake = await startFakePostgres(() => false);
    const started = Date.now();
    const outcome = await Promise.race([
      startListenConnection({ url: fake.url, channel: 'c', onNotification: () => undefined, logger, name: 'test' }).then(
        (connection) => {
          listening = connection;
          return 'connected';
        },
        () => 'failed',
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 8_000)),
    ]);
    expect(outcome).toBe('failed');
    expect(Date.now() - started).toBeLessThan(7_000);
  }, 15_000);

  it('after a broken connection, a reconnect whose LISTEN hangs is given up and tried again', async () => {
    // 1: answers; 2 (the first reconnect after the drop): never answers; 3 and later: answer.
    fake = await startFakePostgres((connection) => connection !== 2);
    let connected = 0;
    listening = await startListenConnection({
      url: fake.url,
      channel: 'c',
      onNotification: () => undefined,
      onConnected: () => connected++,
      logger,
      name: 'test',
    });
    expect(connected).toBe(1);
    fake.dropAll();
    const deadline = Date.now() + 12_000;
    while (connected < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.connections).toBeGreaterThanOrEqual(3);
    expect(connected).toBe(2);
  }, 20_000);
});
