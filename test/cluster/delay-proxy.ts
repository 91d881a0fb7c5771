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

/** Forwards `from` to `to` through the delay, in order. */
function pipeDelayed(from: Socket, to: Socket): void {
  let lastDueAt = 0;
  let pendingEnd = false;
  let inFlight = 0;
  from.on('data', (chunk: Buffer) => {
    const extra = Math.random() < lossRate ? retransmissionTimeoutMs : 0;
    const dueAt = Math.max(Date.now() + delayMs + extra, lastDueAt);
    lastDueAt = dueAt;
    if (dueAt <= Date.now() && inFlight === 0) {
      to.write(chunk);
      return;
    }
    inFlight++;
    setTimeout(() => {
      inFlight--;
      if (!to.destroyed) to.write(chunk);
      if (pendingEnd && inFlight === 0) to.end();
    }, dueAt - Date.now());
  });
  from.on('end', () => {
    if (inFlight === 0) to.end();
    else pendingEnd = true;
  });
  from.on('error', () => to.destroy());
  from.on('close', () => {
    if (inFlight === 0) to.destroy();
    else setTimeout(() => to.destroy(), Math.max(0, lastDueAt - Date.now()) + 10);
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
