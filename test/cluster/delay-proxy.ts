import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy that adds latency and loss between two hosts (this kernel has no netem). Run in the
 * client's namespace: `node --import tsx delay-proxy.ts LISTEN_HOST:PORT TARGET_HOST:PORT`, with an
 * IPC channel; the parent sends `{delayMs, lossRate}` to change the link (both start at 0) and gets
 * `{type:'set'}` back; `{type:'ready'}` once it listens.
 *
 * Each chunk, in each direction, is held `delayMs`; a "lost" one (probability `lossRate`) is held an
 * extra retransmission timeout, as TCP would deliver it after a resend. Order is kept per direction:
 * a chunk never overtakes the one before it.
 */
const retransmissionTimeoutMs = 1_000;

let delayMs = 0;
let lossRate = 0;

function parseAddress(text: string | undefined): { host: string; port: number } {
  const match = /^(.+):(\d+)$/.exec(text ?? '');
  if (!match) throw new Error(`expected HOST:PORT, got ${text}`);
  return { host: match[1] as string, port: Number(match[2]) };
}

/**
 * Forwards `from` to `to` through the delay, in order: one queue per direction with one timer for its
 * head (due times never decrease along the queue). A timer per chunk would not do: two timers due in
 * the same millisecond may fire in either order, and a swapped pair of chunks corrupts the stream.
 */
function pipeDelayed(from: Socket, to: Socket): void {
  const queue: { chunk: Buffer; dueAt: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && (queue[0] as { dueAt: number }).dueAt <= Date.now()) {
      const { chunk } = queue.shift() as { chunk: Buffer };
      if (!to.destroyed) to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, (queue[0] as { dueAt: number }).dueAt - Date.now());
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    const extra = Math.random() < lossRate ? retransmissionTimeoutMs : 0;
    const last = queue.at(-1)?.dueAt ?? 0;
    queue.push({ chunk, dueAt: Math.max(Date.now() + delayMs + extra, last) });
    if (!timer) flush();
  });
  from.on('end', () => {
    ended = true;
    if (!timer) flush();
  });
  from.on('error', () => to.destroy());
  from.on('close', () => {
    // What is queued still goes (as the peer's kernel would deliver it), then the other side closes.
    const drainMs = Math.max(0, (queue.at(-1)?.dueAt ?? 0) - Date.now());
    setTimeout(() => to.destroy(), drainMs + 10);
  });
}

function main(): void {
  const listen = parseAddress(process.argv[2]);
  const target = parseAddress(process.argv[3]);
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipeDelayed(client, upstream);
    pipeDelayed(upstream, client);
  });
  server.listen(listen.port, listen.host, () => process.send?.({ type: 'ready' }));
  process.on('message', (message: { delayMs?: number; lossRate?: number }) => {
    delayMs = message.delayMs ?? delayMs;
    lossRate = message.lossRate ?? lossRate;
    process.send?.({ type: 'set', delayMs, lossRate });
  });
  // The harness is gone: so is the link.
  process.on('disconnect', () => process.exit(0));
}

main();
