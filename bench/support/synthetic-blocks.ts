// Blocks shaped like a busy mainnet's, made up but well formed: every block links to the one before,
// transactions and receipts name their block and position, logs are numbered across the block, and
// the events are real ERC-20 / ERC-721 / ERC-1155 encodings (decoded by the indexer as a node's would
// be). Hashes are unique per block and transaction but not keccak of an RLP header: nothing downstream
// recomputes them (src/chains/block-integrity.ts says why), and making them costs the server CPU the
// indexer needs on this 2-core machine.

export interface BlockShape {
  transactions: number;
  logs: number;
}

const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const transferSingleTopic = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const transferBatchTopic = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';
/** keccak256('Swap(address,uint256,uint256,uint256,uint256,address)'), Uniswap V2's: a busy "other" event. */
const swapTopic = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';
/** keccak256('Approval(address,address,uint256)'). */
const approvalTopic = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

const hex64 = (value: number | bigint) => value.toString(16).padStart(64, '0');
const quantity = (value: number) => `0x${value.toString(16)}`;
const addressOf = (kind: number, index: number) =>
  `0x${kind.toString(16).padStart(8, '0')}${index.toString(16).padStart(32, '0')}`;
const topicOf = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;

export const blockHash = (number: number) => `0xb10c${number.toString(16).padStart(60, '0')}`;
export const txHash = (number: number, index: number) =>
  `0x7e${number.toString(16).padStart(14, '0')}${index.toString(16).padStart(48, '0')}`;

/** A deterministic generator per block: the same block number always gives the same block. */
function random(seed: number) {
  let state = (seed * 2654435761) >>> 0;
  return (max: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % max) >>> 0;
  };
}

/** What a block holds, to compare with what the index stored. */
export interface BlockCounts {
  erc20: number;
  erc721: number;
  erc1155: number;
  native: number;
}

/** One log: half ERC-20 transfers, a tenth ERC-721, a tenth ERC-1155 (some batches), the rest swaps and approvals. */
function logFor(pick: (max: number) => number, counts: BlockCounts): { address: string; topics: string[]; data: string } {
  const holder = () => addressOf(1, pick(20_000));
  const roll = pick(100);
  if (roll < 50) {
    counts.erc20++;
    return {
      address: addressOf(2, pick(300)),
      topics: [transferTopic, topicOf(holder()), topicOf(holder())],
      data: `0x${hex64(1 + pick(1e9))}`,
    };
  }
  if (roll < 60) {
    counts.erc721++;
    return {
      address: addressOf(3, pick(50)),
      topics: [transferTopic, topicOf(holder()), topicOf(holder()), `0x${hex64(pick(100_000))}`],
      data: '0x',
    };
  }
  if (roll < 68) {
    counts.erc1155++;
    const parties = [transferSingleTopic, topicOf(holder()), topicOf(holder()), topicOf(holder())];
    return { address: addressOf(4, pick(30)), topics: parties, data: `0x${hex64(pick(1000))}${hex64(1 + pick(50))}` };
  }
  if (roll < 70) {
    counts.erc1155 += 2;
    const parties = [transferBatchTopic, topicOf(holder()), topicOf(holder()), topicOf(holder())];
    const data = `0x${hex64(64)}${hex64(160)}${hex64(2)}${hex64(pick(1000))}${hex64(pick(1000))}${hex64(2)}${hex64(1 + pick(9))}${hex64(1 + pick(9))}`;
    return { address: addressOf(4, pick(30)), topics: parties, data };
  }
  if (roll < 90) {
    const data = `0x${hex64(pick(1e9))}${hex64(0)}${hex64(0)}${hex64(pick(1e9))}`;
    return { address: addressOf(5, pick(500)), topics: [swapTopic, topicOf(holder()), topicOf(holder())], data };
  }
  return {
    address: addressOf(2, pick(300)),
    topics: [approvalTopic, topicOf(holder()), topicOf(holder())],
    data: `0x${hex64(pick(1e9))}`,
  };
}

/**
 * The JSON texts a node answers for block `number`: `eth_getBlockByNumber(n, true)` and
 * `eth_getBlockReceipts(n)`, with `timestampS` as the block's time and its content drawn from `seed`.
 */
export function makeBlock(
  number: number,
  shape: BlockShape,
  timestampS: number,
  seed = number,
): { block: string; receipts: string; counts: BlockCounts } {
  const pick = random(seed + 1);
  const hash = blockHash(number);
  const counts: BlockCounts = { erc20: 0, erc721: 0, erc1155: 0, native: 0 };
  const place = `"blockHash":"${hash}","blockNumber":"${quantity(number)}"`;
  const transactions: string[] = [];
  const receipts: string[] = [];
  let logIndex = 0;
  for (let index = 0; index < shape.transactions; index++) {
    const tx = txHash(number, index);
    const from = addressOf(1, pick(20_000));
    const native = pick(5) === 0;
    if (native) counts.native++;
    const to = native ? addressOf(1, pick(20_000)) : addressOf(5, pick(500));
    const value = native ? quantity(1 + pick(1e9)) : '0x0';
    const position = `"transactionIndex":"${quantity(index)}"`;
    transactions.push(
      `{"hash":"${tx}",${place},${position},"from":"${from}","to":"${to}","value":"${value}","input":"0x38ed1739","gas":"0x30d40","nonce":"${quantity(pick(1000))}","type":"0x2"}`,
    );
    // Logs spread evenly over the transactions; the first ones take the remainder.
    const logCount = Math.floor(shape.logs / shape.transactions) + (index < shape.logs % shape.transactions ? 1 : 0);
    const logs: string[] = [];
    for (let n = 0; n < logCount; n++) {
      const log = logFor(pick, counts);
      logs.push(
        `{"address":"${log.address}","topics":${JSON.stringify(log.topics)},"data":"${log.data}",${place},"transactionHash":"${tx}",${position},"logIndex":"${quantity(logIndex++)}","removed":false}`,
      );
    }
    receipts.push(
      `{"transactionHash":"${tx}",${position},${place},"from":"${from}","to":"${to}","status":"0x1","contractAddress":null,"gasUsed":"0x186a0","cumulativeGasUsed":"${quantity(100_000 * (index + 1))}","logs":[${logs.join(',')}]}`,
    );
  }
  const parent = number === 0 ? `0x${'0'.repeat(64)}` : blockHash(number - 1);
  const block = `{"number":"${quantity(number)}","hash":"${hash}","parentHash":"${parent}","timestamp":"${quantity(timestampS)}","gasUsed":"${quantity(100_000 * shape.transactions)}","gasLimit":"0x1c9c380","baseFeePerGas":"0x3b9aca00","miner":"${addressOf(6, 0)}","transactions":[${transactions.join(',')}]}`;
  return { block, receipts: `[${receipts.join(',')}]`, counts };
}
