import type { HDAccount } from 'viem';
import { type LoadTally, sample } from './load-tally.ts';
import { quantity, type RpcClient, type RpcOutcome } from './rpc-client.ts';

/** Whether the load goes on. */
export type Running = () => boolean;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client's view of the tip: the highest block number it was answered (eth_blockNumber), checked to never go back. */
class ServedToClient {
  highest = -1;
  constructor(
    private readonly client: RpcClient,
    private readonly tally: LoadTally,
  ) {}

  async poll(): Promise<void> {
    const answer = await this.client.call('eth_blockNumber');
    this.tally.blockNumberPolls++;
    const block = 'result' in answer ? quantity(answer.result) : undefined;
    if (block === undefined) return countError(this.tally, this.client, 'eth_blockNumber', answer);
    if (block < this.highest) {
      this.tally.blockNumberWentBack++;
      sample(this.tally, 'blockNumberWentBack', `${this.client.name}: ${block} after ${this.highest}`);
    }
    this.highest = Math.max(this.highest, block);
  }
}

function countError(tally: LoadTally, client: RpcClient, method: string, answer: RpcOutcome): void {
  tally.errors++;
  sample(
    tally,
    'errors',
    `${client.name} ${method}: ${'error' in answer ? answer.error : `unexpected ${JSON.stringify(answer.result)}`}`,
  );
}

/** Polls eth_blockNumber every `intervalMs`, as a wallet or a dapp watching for new blocks does. */
export async function pollBlockNumber(client: RpcClient, tally: LoadTally, running: Running, intervalMs: number): Promise<void> {
  const served = new ServedToClient(client, tally);
  while (running()) {
    await served.poll();
    await sleep(intervalMs);
  }
}

/** Reads at the tip: the latest block (never older than a block number this client was answered), a balance, logs. */
export async function readSteadily(
  client: RpcClient,
  tally: LoadTally,
  running: Running,
  options: { intervalMs: number; address: string },
): Promise<void> {
  const served = new ServedToClient(client, tally);
  while (running()) {
    await served.poll();
    const latest = await client.call('eth_getBlockByNumber', ['latest', false]);
    tally.latestReads++;
    const number = 'result' in latest ? quantity((latest.result as { number?: unknown } | null)?.number) : undefined;
    if (number === undefined) countError(tally, client, 'eth_getBlockByNumber(latest)', latest);
    else if (number < served.highest) {
      tally.latestWentBack++;
      sample(tally, 'latestWentBack', `${client.name}: latest ${number} after eth_blockNumber ${served.highest}`);
    }
    const from = `0x${Math.max(0, (number ?? 0) - 5).toString(16)}`;
    const reads = await Promise.all([
      client.call('eth_getBalance', [options.address, 'latest']),
      client.call('eth_getLogs', [{ fromBlock: from, toBlock: 'latest' }]),
    ]);
    tally.otherReads += reads.length;
    for (const answer of reads) if ('error' in answer) countError(tally, client, 'read', answer);
    await sleep(options.intervalMs);
  }
}

export interface SenderOptions {
  account: HDAccount;
  to: string;
  chainId: number;
  /** Between polls while waiting for a receipt. */
  pollMs: number;
  /** How long a receipt is waited for. */
  receiptWaitMs: number;
}

/**
 * Sends transfers one after the other, each waited for as wallets do (eth_blockNumber, then the
 * receipt), then asked for again: a null receipt once the client was answered its block is a failure.
 */
export async function sendAndWatch(client: RpcClient, tally: LoadTally, running: Running, options: SenderOptions): Promise<void> {
  const served = new ServedToClient(client, tally);
  let nonce = quantity(await nonceOf(client, options.account.address)) ?? 0;
  while (running()) {
    const raw = await options.account.signTransaction({
      chainId: options.chainId,
      nonce,
      to: options.to as `0x${string}`,
      value: BigInt(1 + nonce),
      gas: 21_000n,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      type: 'eip1559',
    });
    const sent = await client.call('eth_sendRawTransaction', [raw]);
    if ('error' in sent) {
      countError(tally, client, 'eth_sendRawTransaction', sent);
      nonce = quantity(await nonceOf(client, options.account.address)) ?? nonce;
      await sleep(options.pollMs);
      continue;
    }
    tally.transactionsSent++;
    nonce++;
    await watchReceipt(client, tally, served, String(sent.result), options);
  }
}

async function nonceOf(client: RpcClient, address: string): Promise<unknown> {
  const answer = await client.call('eth_getTransactionCount', [address, 'pending']);
  return 'result' in answer ? answer.result : undefined;
}

/** Polls the receipt until it comes, then twice more; checks every null against the block numbers this client was answered. */
async function watchReceipt(
  client: RpcClient,
  tally: LoadTally,
  served: ServedToClient,
  hash: string,
  options: SenderOptions,
): Promise<void> {
  const nullsWhileServed: number[] = [];
  const deadline = Date.now() + options.receiptWaitMs;
  let block: number | undefined;
  while (block === undefined && Date.now() < deadline) {
    await served.poll();
    const servedBefore = served.highest;
    const receipt = await receiptOf(client, tally, hash);
    if (receipt === null) nullsWhileServed.push(servedBefore);
    else if (receipt !== undefined) block = receipt;
    if (block === undefined) await sleep(options.pollMs);
  }
  if (block === undefined) {
    tally.receiptsNeverFound++;
    sample(tally, 'receiptsNeverFound', `${client.name}: ${hash}`);
    return;
  }
  tally.receiptsFound++;
  tally.mined.add(hash.toLowerCase());
  const early = nullsWhileServed.filter((highest) => highest >= block!);
  if (early.length > 0) {
    tally.nullReceiptAfterBlockServed += early.length;
    sample(tally, 'nullReceiptAfterBlockServed', `${client.name}: ${hash} in block ${block}, null after ${early[0]} was served`);
  }
  for (let again = 0; again < 2; again++) {
    await sleep(options.pollMs);
    if ((await receiptOf(client, tally, hash)) === null) {
      tally.nullReceiptAfterReceipt++;
      sample(tally, 'nullReceiptAfterReceipt', `${client.name}: ${hash} (block ${block}) null after its receipt`);
    }
  }
}

/** The receipt's block number; null: no receipt; undefined: an error (counted). */
async function receiptOf(client: RpcClient, tally: LoadTally, hash: string): Promise<number | null | undefined> {
  const answer = await client.call('eth_getTransactionReceipt', [hash]);
  tally.receiptPolls++;
  if ('error' in answer) {
    countError(tally, client, 'eth_getTransactionReceipt', answer);
    return undefined;
  }
  if (answer.result === null) return null;
  return quantity((answer.result as { blockNumber?: unknown }).blockNumber) ?? null;
}
