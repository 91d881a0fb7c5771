import { type Address, type Hash, type PublicClient, parseAbiItem } from 'viem';

const accountDeployedEvent = parseAbiItem(
  'event AccountDeployed(bytes32 indexed userOpHash, address indexed sender, address factory, address paymaster)',
);

export interface FoundDeployment {
  readonly txHash: Hash;
  readonly blockNumber: bigint;
  /** The block's time, in seconds. */
  readonly timestamp: bigint;
}

/**
 * The transaction that deployed a wallet that has code, read from the chain: the first block with code
 * at the address (a binary search of `eth_getCode` over the history: about log2(head) reads, so ~25 on
 * a chain of 20 million blocks), then in that block the EntryPoint's `AccountDeployed` for the wallet or,
 * deployed without the EntryPoint, the first log the wallet emitted (SimpleAccount's initialisation).
 * Undefined when none is found; throws when the node cannot read the history (a pruned node).
 */
export async function findDeployment(
  client: PublicClient,
  wallet: Address,
  entryPoint: Address,
): Promise<FoundDeployment | undefined> {
  let low = 0n;
  let high = await client.getBlockNumber();
  if (!hasCode(await client.getCode({ address: wallet, blockNumber: high }))) return undefined;
  while (low < high) {
    const middle = (low + high) / 2n;
    if (hasCode(await client.getCode({ address: wallet, blockNumber: middle }))) high = middle;
    else low = middle + 1n;
  }
  const inBlock = { fromBlock: high, toBlock: high };
  const [deployed] = await client.getLogs({
    address: entryPoint,
    event: accountDeployedEvent,
    args: { sender: wallet },
    ...inBlock,
  });
  const txHash = deployed?.transactionHash ?? (await client.getLogs({ address: wallet, ...inBlock }))[0]?.transactionHash;
  if (!txHash) return undefined;
  const { timestamp } = await client.getBlock({ blockNumber: high });
  return { txHash, blockNumber: high, timestamp };
}

const hasCode = (code: string | undefined) => code !== undefined && code !== '0x';
