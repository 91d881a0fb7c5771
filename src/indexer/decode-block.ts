import { decodeAbiParameters, type Hex } from 'viem';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { BlockBundle, RawLog, RawTrace } from './raw-types.ts';

/** keccak256('Transfer(address,address,uint256)'): ERC-20 (3 topics) and ERC-721 (4 topics). */
export const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** keccak256('TransferSingle(address,address,address,uint256,uint256)'). */
export const transferSingleTopic = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
/** keccak256('TransferBatch(address,address,address,uint256[],uint256[])'). */
export const transferBatchTopic = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

export const zeroAddress = '0x0000000000000000000000000000000000000000';

export interface TransactionFact {
  hash: string;
  index: number;
  from: string;
  to: string | null;
  value: bigint;
  /** 1 success, 0 reverted. */
  status: number;
  contractCreated: string | null;
  /** The function selector the call data starts with (0x + 8 hex digits), null for a plain transfer or a creation. */
  selector: string | null;
}

export interface LogFact {
  address: string;
  topics: string[];
  data: string;
  logIndex: number;
  transactionHash: string;
  transactionIndex: number;
}

export interface TokenTransferFact {
  contract: string;
  from: string;
  to: string;
  value: bigint;
  logIndex: number;
  transactionHash: string;
}

export interface NftTransferFact {
  contract: string;
  standard: NftStandard;
  operator: string | null;
  from: string;
  to: string;
  tokenId: bigint;
  amount: bigint;
  logIndex: number;
  batchIndex: number;
  transactionHash: string;
}

export interface NativeTransferFact {
  from: string;
  to: string;
  value: bigint;
  transactionHash: string;
}

export interface InternalTransferFact extends NativeTransferFact {
  callType: string;
  /** Position in the transaction's call tree, e.g. '0.2'. */
  tracePath: string;
}

/** Everything the index records of one block, decoded and lower-cased. */
export interface BlockFacts {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: Date;
  gasUsed: bigint;
  transactions: TransactionFact[];
  logs: LogFact[];
  tokenTransfers: TokenTransferFact[];
  nftTransfers: NftTransferFact[];
  nativeTransfers: NativeTransferFact[];
  internalTransfers: InternalTransferFact[];
}

const lower = (value: string) => value.toLowerCase();
const topicAddress = (topic: string) => `0x${topic.slice(26)}`.toLowerCase();
const hexNumber = (value: Hex) => Number.parseInt(value, 16);

/** Decodes a fetched block into the facts the index stores. Pure: no I/O. */
export function decodeBlock(bundle: BlockBundle): BlockFacts {
  const { block, receipts, traces } = bundle;
  const receiptOf = new Map(receipts.map((receipt) => [lower(receipt.transactionHash), receipt]));
  const transactions: TransactionFact[] = [];
  const logs: LogFact[] = [];
  const tokenTransfers: TokenTransferFact[] = [];
  const nftTransfers: NftTransferFact[] = [];
  const nativeTransfers: NativeTransferFact[] = [];
  const succeeded = new Set<string>();

  for (const tx of block.transactions) {
    const hash = lower(tx.hash);
    const receipt = receiptOf.get(hash);
    if (!receipt) throw new Error(`block ${hexNumber(block.number)}: no receipt for transaction ${hash}`);
    const status = receipt.status === '0x1' ? 1 : 0;
    const contractCreated = receipt.contractAddress ? lower(receipt.contractAddress) : null;
    const fact: TransactionFact = {
      hash,
      index: hexNumber(tx.transactionIndex),
      from: lower(tx.from),
      to: tx.to ? lower(tx.to) : null,
      value: BigInt(tx.value),
      status,
      contractCreated,
      selector: tx.to && tx.input && tx.input.length >= 10 ? tx.input.slice(0, 10).toLowerCase() : null,
    };
    transactions.push(fact);
    if (status !== 1) continue;
    succeeded.add(hash);
    const recipient = fact.to ?? contractCreated;
    if (fact.value > 0n && recipient)
      nativeTransfers.push({ from: fact.from, to: recipient, value: fact.value, transactionHash: hash });
    for (const log of receipt.logs) {
      const logFact = toLogFact(log);
      logs.push(logFact);
      decodeTransferLog(logFact, tokenTransfers, nftTransfers);
    }
  }
  return {
    number: hexNumber(block.number),
    hash: lower(block.hash),
    parentHash: lower(block.parentHash),
    timestamp: new Date(hexNumber(block.timestamp) * 1000),
    gasUsed: BigInt(block.gasUsed),
    transactions,
    logs,
    tokenTransfers,
    nftTransfers,
    nativeTransfers,
    internalTransfers: traces ? decodeInternalTransfers(traces, succeeded) : [],
  };
}

function toLogFact(log: RawLog): LogFact {
  return {
    address: lower(log.address),
    topics: log.topics.map(lower),
    data: lower(log.data),
    logIndex: hexNumber(log.logIndex),
    transactionHash: lower(log.transactionHash),
    transactionIndex: hexNumber(log.transactionIndex),
  };
}

/** Recognises ERC-20/721 Transfer and ERC-1155 TransferSingle/TransferBatch; other logs, and malformed ones, are left as plain logs. */
function decodeTransferLog(log: LogFact, tokens: TokenTransferFact[], nfts: NftTransferFact[]): void {
  const [topic0, t1, t2, t3] = log.topics;
  const base = { contract: log.address, logIndex: log.logIndex, transactionHash: log.transactionHash };
  if (topic0 === transferTopic) {
    if (log.topics.length === 3 && log.data.length === 66 && t1 && t2) {
      tokens.push({ ...base, from: topicAddress(t1), to: topicAddress(t2), value: BigInt(log.data) });
    } else if (log.topics.length === 4 && log.data === '0x' && t1 && t2 && t3) {
      nfts.push({
        ...base,
        standard: 'ERC721',
        operator: null,
        from: topicAddress(t1),
        to: topicAddress(t2),
        tokenId: BigInt(t3),
        amount: 1n,
        batchIndex: 0,
      });
    }
    return;
  }
  if ((topic0 !== transferSingleTopic && topic0 !== transferBatchTopic) || log.topics.length !== 4 || !t1 || !t2 || !t3) return;
  const parties = { operator: topicAddress(t1), from: topicAddress(t2), to: topicAddress(t3) };
  try {
    if (topic0 === transferSingleTopic) {
      const [id, amount] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], log.data as Hex);
      nfts.push({ ...base, ...parties, standard: 'ERC1155', tokenId: id, amount, batchIndex: 0 });
      return;
    }
    const [ids, amounts] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data as Hex);
    if (ids.length !== amounts.length) return;
    ids.forEach((id, index) => {
      nfts.push({ ...base, ...parties, standard: 'ERC1155', tokenId: id, amount: amounts[index] ?? 0n, batchIndex: index });
    });
  } catch {
    // Data that does not decode is not a transfer the standard defines: it stays a plain log.
  }
}

/** Value moved by calls inside a transaction (not its top-level call), skipping reverted frames and their children. */
function decodeInternalTransfers(traces: RawTrace[], succeeded: Set<string>): InternalTransferFact[] {
  const failedFrames = new Set<string>();
  for (const trace of traces) {
    if (trace.error && trace.transactionHash) failedFrames.add(`${lower(trace.transactionHash)}:${trace.traceAddress.join('.')}`);
  }
  const insideFailedFrame = (txHash: string, path: number[]) => {
    for (let depth = 0; depth <= path.length; depth++) {
      if (failedFrames.has(`${txHash}:${path.slice(0, depth).join('.')}`)) return true;
    }
    return false;
  };
  const transfers: InternalTransferFact[] = [];
  for (const trace of traces) {
    if (!trace.transactionHash || trace.traceAddress.length === 0) continue;
    const txHash = lower(trace.transactionHash);
    if (!succeeded.has(txHash) || insideFailedFrame(txHash, trace.traceAddress)) continue;
    const value = trace.action.value ? BigInt(trace.action.value) : 0n;
    if (value === 0n || !trace.action.from) continue;
    const callType = trace.type === 'call' ? (trace.action.callType ?? 'call') : trace.type;
    if (callType !== 'call' && callType !== 'create' && callType !== 'create2') continue;
    const to = trace.type === 'create' ? trace.result?.address : trace.action.to;
    if (!to) continue;
    transfers.push({
      from: lower(trace.action.from),
      to: lower(to),
      value,
      transactionHash: txHash,
      callType,
      tracePath: trace.traceAddress.join('.'),
    });
  }
  return transfers;
}
