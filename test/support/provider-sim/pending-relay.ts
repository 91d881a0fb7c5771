import WebSocket from 'ws';

/**
 * Which `eth_subscribe newPendingTransactions` forms the node serves, as real clients differ:
 * - `geth`: geth >= 1.11, reth, anvil: bare = hashes, `true` = whole transactions;
 * - `nethermind`: Nethermind and Besu: bare = hashes, `{includeTransactions: true}` = whole;
 * - `hashes-only`: a node (or a provider's gateway) that refuses any second parameter;
 * - `ignores-flag`: an older node that takes `true` and still sends hashes.
 */
export type PendingForm = 'geth' | 'nethermind' | 'hashes-only' | 'ignores-flag';

/** Whole transactions, hashes, or a refusal (the node's error message) for one subscribe call's parameters. */
export function pendingAnswer(form: PendingForm, params: readonly unknown[]): 'whole' | 'hashes' | { refused: string } {
  const option = params[1];
  if (params.length <= 1) return 'hashes';
  if (form === 'geth' && params.length === 2 && typeof option === 'boolean') return option ? 'whole' : 'hashes';
  if (form === 'ignores-flag' && params.length === 2 && typeof option === 'boolean') return 'hashes';
  if (form === 'nethermind' && params.length === 2 && typeof option === 'object' && option !== null) {
    return (option as { includeTransactions?: unknown }).includeTransactions === true ? 'whole' : 'hashes';
  }
  return { refused: form === 'nethermind' ? 'Invalid params' : 'too many arguments, want at most 1' };
}

/**
 * anvil's whole-transaction pending subscription on a socket of its own, relayed whole or as hashes.
 * `ready` settles once anvil confirmed it, so the node's answer to the client waits for that.
 */
export function relayPending(
  upstreamWs: string,
  whole: boolean,
  notify: (item: unknown) => void,
): { ready: Promise<void>; stop(): void } {
  const socket = new WebSocket(upstreamWs);
  let subscription: string | undefined;
  let confirmed: () => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    confirmed = resolve;
    socket.once('error', reject);
    setTimeout(() => reject(new Error('anvil did not confirm newPendingTransactions')), 5_000).unref();
  });
  socket.on('error', () => {});
  socket.once('open', () =>
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions', true] })),
  );
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      result?: string;
      params?: { subscription?: string; result?: { hash?: string } };
    };
    if (message.id === 1) {
      subscription = message.result;
      confirmed();
    } else if (subscription !== undefined && message.params?.subscription === subscription) {
      const transaction = message.params.result;
      notify(whole ? transaction : transaction?.hash);
    }
  });
  return { ready, stop: () => socket.terminate() };
}
