import { type Address, type Hex, keccak256, toHex } from 'viem';
import type { ChainClient } from './chain-client.ts';
import { sleep } from './timed-request.ts';

export const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'));
export const userOperationEventTopic = keccak256(
  toHex('UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)'),
);

/** One matching Transfer log, where the chain put it. */
export interface ChainTransfer {
  txHash: Hex;
  logIndex: number;
  block: number;
  /** When this observer first saw its block (local clock). */
  seenAt: number;
}

interface Receipt {
  transactionHash: Hex;
  to: Address | null;
  status: Hex;
  logs: { address: Address; topics: Hex[]; logIndex: Hex; transactionHash: Hex }[];
}

/**
 * The independent observer of the chain: reads every block's receipts from anvil directly (never the
 * service) from `fromBlock` on, and keeps the token's Transfer logs, the EntryPoint's
 * UserOperationEvent logs (by userOpHash, counted) and the transactions to the EntryPoint that reverted.
 * Other processes' transactions in the same blocks are ignored. A failed read is tried again.
 */
export class ChainScanner {
  readonly transfers: ChainTransfer[] = [];
  readonly landed = new Map<Hex, number>();
  readonly revertedBundles: Hex[] = [];
  /** Local times the observer saw the chain's head move, oldest first (the last few hundred). */
  private readonly headMoves: number[] = [];
  head = 0n;
  private next: bigint;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly chain: ChainClient,
    private readonly token: Address,
    private readonly entryPoint: Address,
    fromBlock: bigint,
  ) {
    this.next = fromBlock;
  }

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** When the chain's head first moved after `since` (local clock), if it has. */
  firstMoveAfter(since: number): number | undefined {
    return this.headMoves.find((at) => at > since);
  }

  /** The block the scan has read up to (inclusive). */
  get scannedTo(): bigint {
    return this.next - 1n;
  }

  /** Reads up to the chain's current head once. */
  private async catchUp(): Promise<void> {
    const head = await this.chain.blockNumber();
    this.noteHead(head);
    while (this.next <= head && !this.stopped) await this.readBlock(this.next);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.catchUp();
      } catch {
        // The chain may be unreachable during a fault: read again shortly.
      }
      await sleep(250);
    }
  }

  private noteHead(head: bigint): void {
    if (head > this.head) {
      this.head = head;
      this.headMoves.push(Date.now());
      if (this.headMoves.length > 500) this.headMoves.shift();
    }
  }

  private async readBlock(number: bigint): Promise<void> {
    const receipts = await this.chain.call<Receipt[]>('eth_getBlockReceipts', [toHex(number)], 10_000);
    const seenAt = Date.now();
    const token = this.token.toLowerCase();
    const entryPoint = this.entryPoint.toLowerCase();
    for (const receipt of receipts ?? []) {
      if (receipt.to?.toLowerCase() === entryPoint && BigInt(receipt.status) === 0n) {
        this.revertedBundles.push(receipt.transactionHash);
      }
      for (const log of receipt.logs) {
        const address = log.address.toLowerCase();
        if (address === token && log.topics[0] === transferTopic) {
          this.transfers.push({
            txHash: log.transactionHash.toLowerCase() as Hex,
            logIndex: Number(BigInt(log.logIndex)),
            block: Number(number),
            seenAt,
          });
        } else if (address === entryPoint && log.topics[0] === userOperationEventTopic && log.topics[1]) {
          const hash = log.topics[1].toLowerCase() as Hex;
          this.landed.set(hash, (this.landed.get(hash) ?? 0) + 1);
        }
      }
    }
    this.next = number + 1n;
  }
}
