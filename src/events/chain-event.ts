/** What the indexer records; every fact of an indexed block becomes one event of these types. */
export const chainEventTypes = [
  'block',
  'transaction',
  'log',
  'token_transfer',
  'nft_transfer',
  'native_transfer',
  'internal_transfer',
] as const;
export type ChainEventType = (typeof chainEventTypes)[number];

/**
 * One entry of the chain event stream (docs/chain-events.md). `seq` grows with every event across
 * networks; a reorg appends a `removed: true` twin (same type and data, `removes_seq` = the original's
 * seq) for every event of a dropped block.
 */
export interface ChainEvent {
  /** Decimal string: int8 in the database. */
  readonly seq: string;
  /** '{chain}/{network}'. */
  readonly network: string;
  readonly type: ChainEventType;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly removed: boolean;
  readonly removesSeq: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

export type ChainEventListener = (events: readonly ChainEvent[]) => void;

/** Pushes committed events to listeners in this process (and, when configured, from other processes). */
export interface ChainEventBus {
  /** Calls `listener` with each committed batch, in seq order. Returns the unsubscribe function. */
  subscribe(listener: ChainEventListener): () => void;
  /** Called by the writer after the transaction that inserted `events` committed. */
  publish(events: readonly ChainEvent[]): void;
  close(): Promise<void>;
}
