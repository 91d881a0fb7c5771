import { type Hex, toEventSelector } from 'viem';

/** EIP-4906: a token's metadata changed; a range of tokens' metadata changed. */
const metadataUpdateTopic = toEventSelector('MetadataUpdate(uint256)');
const batchMetadataUpdateTopic = toEventSelector('BatchMetadataUpdate(uint256,uint256)');
/** ERC-7572: the contract-level metadata (`contractURI()`) changed. */
const contractUriUpdatedTopic = toEventSelector('ContractURIUpdated()');

export type MetadataUpdate =
  | { readonly contract: string; readonly tokenId: bigint }
  | { readonly contract: string; readonly fromTokenId: bigint; readonly toTokenId: bigint };

/**
 * The EIP-4906 update a log announces, from a `log` event's data (`address`, `topics`, `data`); undefined
 * for any other log. The EIP declares the ids unindexed, but contracts that index them exist, so the
 * words are read from the topics after the first, then the data.
 */
export function metadataUpdateOf(log: Readonly<Record<string, unknown>>): MetadataUpdate | undefined {
  const { address, topics, data } = log as { address?: unknown; topics?: unknown; data?: unknown };
  if (typeof address !== 'string' || !Array.isArray(topics) || typeof data !== 'string') return undefined;
  const topic = String(topics[0]).toLowerCase();
  const wanted = topic === metadataUpdateTopic ? 1 : topic === batchMetadataUpdateTopic ? 2 : 0;
  if (wanted === 0) return undefined;
  const unindexed = dataWords(data);
  if (unindexed === undefined) return undefined;
  const words = [...topics.slice(1).map(String), ...unindexed];
  if (words.length !== wanted || !words.every((word) => /^0x[0-9a-fA-F]{64}$/.test(word))) return undefined;
  const contract = address.toLowerCase();
  const [first, second] = words.map((word) => BigInt(word));
  return wanted === 1 ? { contract, tokenId: first! } : { contract, fromTokenId: first!, toTokenId: second! };
}

function dataWords(data: string): Hex[] | undefined {
  const body = data.startsWith('0x') ? data.slice(2) : data;
  if (body.length % 64 !== 0) return undefined;
  const words: Hex[] = [];
  for (let at = 0; at < body.length; at += 64) words.push(`0x${body.slice(at, at + 64)}`);
  return words;
}

/** The contract whose `contractURI()` document changed (ERC-7572 `ContractURIUpdated()`), from a `log` event's data. */
export function contractUriUpdateOf(log: Readonly<Record<string, unknown>>): string | undefined {
  const { address, topics } = log as { address?: unknown; topics?: unknown };
  if (typeof address !== 'string' || !Array.isArray(topics) || topics.length !== 1) return undefined;
  return String(topics[0]).toLowerCase() === contractUriUpdatedTopic ? address.toLowerCase() : undefined;
}
