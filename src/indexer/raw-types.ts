import type { Hex } from 'viem';

/** The parts of a node's JSON-RPC answers the indexer reads (eth_getBlockByNumber with full transactions). */
export interface RawBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  gasUsed: Hex;
  transactions: RawTransaction[];
}

export interface RawTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  transactionIndex: Hex;
  /** Call data: its first four bytes name the function called. */
  input?: Hex;
}

/** eth_getBlockReceipts entries. */
export interface RawReceipt {
  transactionHash: Hex;
  status: Hex;
  contractAddress: Hex | null;
  logs: RawLog[];
}

export interface RawLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
}

/** trace_block (parity style) entries. */
export interface RawTrace {
  type: string;
  action: { callType?: string; from?: Hex; to?: Hex; value?: Hex };
  result?: { address?: Hex } | null;
  traceAddress: number[];
  transactionHash: Hex | null;
  error?: string;
}

/** One block and everything fetched with it. `traces` is absent when the upstream offers no tracing. */
export interface BlockBundle {
  block: RawBlock;
  receipts: RawReceipt[];
  traces?: RawTrace[];
}
