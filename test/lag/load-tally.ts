/** Counts of what the load's clients were answered, and of every answer that broke a rule. */
export interface LoadTally {
  blockNumberPolls: number;
  /** An eth_blockNumber lower than one already answered to the same client. */
  blockNumberWentBack: number;
  transactionsSent: number;
  receiptPolls: number;
  receiptsFound: number;
  /** A null receipt although the client had been answered a block number at or above the receipt's block. */
  nullReceiptAfterBlockServed: number;
  /** A null receipt after the same client had been answered the receipt. */
  nullReceiptAfterReceipt: number;
  /** Transactions whose receipt never came within the wait. */
  receiptsNeverFound: number;
  latestReads: number;
  /** eth_getBlockByNumber('latest') older than a block number already answered to the same client. */
  latestWentBack: number;
  otherReads: number;
  /** JSON-RPC or HTTP errors answered to the clients (every method). */
  errors: number;
  /** Hashes of the transactions whose receipt came: each must reach the address_activity webhook once. */
  readonly mined: Set<string>;
  /** The first few of each broken rule, for the report. */
  readonly samples: Map<string, string[]>;
}

const samplesPerRule = 5;

export function createLoadTally(): LoadTally {
  return {
    blockNumberPolls: 0,
    blockNumberWentBack: 0,
    transactionsSent: 0,
    receiptPolls: 0,
    receiptsFound: 0,
    nullReceiptAfterBlockServed: 0,
    nullReceiptAfterReceipt: 0,
    receiptsNeverFound: 0,
    latestReads: 0,
    latestWentBack: 0,
    otherReads: 0,
    errors: 0,
    mined: new Set(),
    samples: new Map(),
  };
}

/** Keeps a few examples of what broke `rule`. */
export function sample(tally: LoadTally, rule: keyof LoadTally, text: string): void {
  const list = tally.samples.get(rule) ?? [];
  if (list.length < samplesPerRule) list.push(text);
  tally.samples.set(rule, list);
}
