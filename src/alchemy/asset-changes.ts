import { formatUnits, toEventSelector } from 'viem';
import { type SimulationStep, transferTopic, wordAddress } from './simulation-outcome.ts';

export type AssetType = 'NATIVE' | 'ERC20' | 'ERC721' | 'ERC1155';
export type ChangeType = 'TRANSFER' | 'APPROVE';

/** One of Alchemy's asset changes; absent facts are null, as Alchemy answers them. */
export interface AssetChange {
  assetType: AssetType;
  changeType: ChangeType;
  from: string;
  to: string;
  rawAmount: string | null;
  contractAddress: string | null;
  /** Decimal digits (as the NFT API v3 gives token ids). */
  tokenId: string | null;
  decimals: number | null;
  symbol: string | null;
  name: string | null;
  logo: string | null;
  amount: string | null;
}

/** A change before its metadata: what the logs and value moves say. */
export interface RawChange {
  readonly assetType: AssetType | 'NFT_APPROVAL_FOR_ALL';
  readonly changeType: ChangeType;
  readonly from: string;
  readonly to: string;
  readonly rawAmount: bigint | null;
  readonly contract: string | null;
  readonly tokenId: bigint | null;
}

const approvalTopic = toEventSelector('event Approval(address indexed owner, address indexed spender, uint256 value)');
const approvalForAllTopic = toEventSelector(
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
);
const transferSingleTopic = toEventSelector(
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
);
const transferBatchTopic = toEventSelector(
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
);

const words = (data: string): bigint[] => (data.slice(2).match(/.{64}/g) ?? []).map((word) => BigInt(`0x${word}`));

/** TransferBatch's two dynamic arrays (ids, values), read from the ABI encoding. */
function batchArrays(data: string): { ids: bigint[]; values: bigint[] } | undefined {
  const all = words(data);
  const array = (offset: bigint | undefined): bigint[] | undefined => {
    if (offset === undefined || offset % 32n !== 0n) return undefined;
    const at = Number(offset / 32n);
    const length = all[at];
    if (length === undefined || length > BigInt(all.length)) return undefined;
    const items = all.slice(at + 1, at + 1 + Number(length));
    return items.length === Number(length) ? items : undefined;
  };
  const ids = array(all[0]);
  const values = array(all[1]);
  return ids && values && ids.length === values.length ? { ids, values } : undefined;
}

function singlePairs(data: string): { id: bigint; value: bigint }[] {
  const [id, value] = words(data);
  return id === undefined || value === undefined ? [] : [{ id, value }];
}

function batchPairs(data: string): { id: bigint; value: bigint }[] {
  const arrays = batchArrays(data);
  return arrays === undefined ? [] : arrays.ids.map((id, i) => ({ id, value: arrays.values[i]! }));
}

/**
 * The asset changes one step makes, from the standard events: ERC-20 and ERC-721 Transfer and Approval
 * (told apart by the token id in the fourth topic), ApprovalForAll (ERC-721 or ERC-1155, told later by
 * the contract), ERC-1155 TransferSingle and TransferBatch; a native value move. Other logs make none.
 */
export function rawChangesOfStep(step: SimulationStep): RawChange[] {
  if (step.kind === 'native') {
    return [
      {
        assetType: 'NATIVE',
        changeType: 'TRANSFER',
        from: step.from,
        to: step.to,
        rawAmount: step.value,
        contract: null,
        tokenId: null,
      },
    ];
  }
  const { address, topics, data } = step.log;
  const contract = address.toLowerCase();
  const [topic, one, two, three] = topics;
  const base = { contract };
  if ((topic === transferTopic || topic === approvalTopic) && one !== undefined && two !== undefined) {
    const changeType: ChangeType = topic === transferTopic ? 'TRANSFER' : 'APPROVE';
    const ends = { from: wordAddress(one), to: wordAddress(two) };
    if (three !== undefined) {
      const cleared = changeType === 'APPROVE' && BigInt(two) === 0n;
      return [{ ...base, ...ends, assetType: 'ERC721', changeType, rawAmount: cleared ? 0n : null, tokenId: BigInt(three) }];
    }
    const [amount] = words(data);
    if (amount === undefined) return [];
    return [{ ...base, ...ends, assetType: 'ERC20', changeType, rawAmount: amount, tokenId: null }];
  }
  if (topic === approvalForAllTopic && one !== undefined && two !== undefined) {
    const [approved] = words(data);
    const ends = { from: wordAddress(one), to: wordAddress(two) };
    return [
      {
        ...base,
        ...ends,
        assetType: 'NFT_APPROVAL_FOR_ALL',
        changeType: 'APPROVE',
        rawAmount: approved === 0n ? 0n : null,
        tokenId: null,
      },
    ];
  }
  if ((topic === transferSingleTopic || topic === transferBatchTopic) && two !== undefined && three !== undefined) {
    const ends = { from: wordAddress(two), to: wordAddress(three) };
    const pairs = topic === transferSingleTopic ? singlePairs(data) : batchPairs(data);
    return pairs.map(({ id, value }) => ({
      ...base,
      ...ends,
      assetType: 'ERC1155' as const,
      changeType: 'TRANSFER' as const,
      rawAmount: value,
      tokenId: id,
    }));
  }
  return [];
}

/** What Blockyard knows of an asset: ERC-20 facts, an NFT contract's symbol, the native currency. */
export interface AssetFacts {
  readonly symbol: string | null;
  readonly decimals: number | null;
  readonly name: string | null;
  readonly logo: string | null;
}

/** A raw change with its facts, in Alchemy's shape; `amount` is the raw amount in units of `decimals`. */
export function formatChange(change: RawChange, assetType: AssetType, facts: AssetFacts): AssetChange {
  const decimals = assetType === 'ERC721' || assetType === 'ERC1155' ? 0 : facts.decimals;
  const raw = change.rawAmount;
  return {
    assetType,
    changeType: change.changeType,
    from: change.from,
    to: change.to,
    rawAmount: raw === null ? null : raw.toString(),
    contractAddress: change.contract,
    tokenId: change.tokenId === null ? null : change.tokenId.toString(),
    decimals,
    symbol: facts.symbol,
    name: facts.name,
    logo: facts.logo,
    amount: raw === null || decimals === null ? null : formatUnits(raw, decimals),
  };
}
