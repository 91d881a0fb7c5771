import type { Header } from './chain-window.ts';
import { fullTransactionsOf, type TransactionLike } from './mined-transactions.ts';

/** How a feed reads a new block's logs and transactions: its connection then its fallback, and where a give-up is told. */
export interface BlockPartReader {
  read(method: string, params: unknown[], usable: (result: unknown) => boolean): Promise<unknown>;
  skipped(error: unknown, what: string, blockHash: string): void;
}

type Log = Record<string, unknown>;

const retryDelaysMs = [250, 500, 1_000, 2_000];

/** A block's part, retried a few times (a node that has not seen the block yet); after that, `fallback` and a warning. */
async function readWithRetries<T>(reader: BlockPartReader, what: string, header: Header, read: () => Promise<T>, fallback: T) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay = retryDelaysMs[attempt];
      if (delay === undefined) {
        reader.skipped(error, what, header.hash);
        return fallback;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export function fetchBlockLogs(reader: BlockPartReader, header: Header): Promise<Log[]> {
  const blockHash = header.hash;
  // No logs from a block whose bloom says it has some: a node that lacks the block (some answer [] for an unknown hash).
  const usable = (result: unknown) => Array.isArray(result) && (result.length > 0 || !bloomHasLogs(header.logsBloom));
  return readWithRetries(
    reader,
    'logs',
    header,
    async () => (await reader.read('eth_getLogs', [{ blockHash }], usable)) as Log[],
    [],
  );
}

export function fetchBlockTransactions(reader: BlockPartReader, header: Header): Promise<TransactionLike[]> {
  const usable = (result: unknown) => fullTransactionsOf(result, header.hash) !== undefined;
  const read = async () => {
    const transactions = fullTransactionsOf(await reader.read('eth_getBlockByHash', [header.hash, true], usable), header.hash);
    if (transactions === undefined) throw new Error(`no node answered block ${header.hash} with its transactions`);
    return transactions;
  };
  return readWithRetries(reader, 'transactions', header, read, []);
}

function bloomHasLogs(bloom: unknown): boolean {
  return typeof bloom !== 'string' || /[1-9a-f]/i.test(bloom.slice(2));
}
