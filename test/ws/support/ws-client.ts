import WebSocket from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: test messages are inspected freely
export type Message = any;

/** A raw WebSocket JSON-RPC client for tests: every message kept, every wait bounded. */
export interface RawClient {
  readonly ws: WebSocket;
  readonly messages: Message[];
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  send(value: unknown): void;
  /** Sends a call and resolves with the answer carrying its id. */
  call(method: string, params?: unknown): Promise<Message>;
  /** The first message (seen or yet to come) that matches. */
  waitFor(match: (message: Message) => boolean, timeoutMs?: number): Promise<Message>;
  /** Items of one subscription, in arrival order. */
  items(subscription: string): Message[];
  close(): void;
}

let nextId = 1;

export async function connectRaw(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
  const ws = new WebSocket(url, { headers });
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)));
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  ws.on('error', () => {});

  const waitFor = (match: (message: Message) => boolean, timeoutMs = 10_000) =>
    new Promise<Message>((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (found === undefined) return false;
        cleanup();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages).slice(-2000)}`));
      }, timeoutMs);
      const wake = () => void check();
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(wake);
      };
      waiters.add(wake);
      check();
    });

  return {
    ws,
    messages,
    closed,
    send: (value) => ws.send(typeof value === 'string' ? value : JSON.stringify(value)),
    async call(method, params = []) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return waitFor((message) => message.id === id);
    },
    waitFor,
    items: (subscription) =>
      messages
        .filter((m) => m.method === 'eth_subscription' && m.params.subscription === subscription)
        .map((m) => m.params.result),
    close: () => ws.close(),
  };
}

/** How long a close is waited for: the rule is 1 s; the wait allows for a loaded machine, and says what it saw. */
const closeWithinMs = 5_000;

/** The socket's close, and how long after `since` it came; rejects when it does not come in time. */
export async function closeOf(client: RawClient, since: number): Promise<{ code: number; reason: string; afterMs: number }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the socket was not closed within ${closeWithinMs} ms`)), closeWithinMs);
  });
  const closed = await Promise.race([client.closed, timeout]).finally(() => clearTimeout(timer));
  return { ...closed, afterMs: Date.now() - since };
}

/** Polls until `check` returns a value other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
