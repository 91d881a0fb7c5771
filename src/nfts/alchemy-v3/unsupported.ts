import type { Address } from 'viem';
import { NotAnNftContractError } from '../chain-reads.ts';
import { checksummed } from './checksum.ts';
import { noOpenSeaMetadata } from './shapes.ts';

/**
 * What a batch answers in place of an item whose address holds no NFT contract (the 404 of the
 * single-item route). Any other failure (the node cannot be reached) fails the whole batch.
 */
function unsupported(error: unknown): NotAnNftContractError {
  if (!(error instanceof NotAnNftContractError)) throw error;
  return error;
}

function contractOf(address: Address, tokenType: NotAnNftContractError['tokenType']) {
  return {
    address: checksummed(address),
    name: null,
    symbol: null,
    totalSupply: null,
    tokenType,
    contractDeployer: null,
    deployedBlockNumber: null,
    openSeaMetadata: noOpenSeaMetadata,
    isSpam: false,
    spamClassifications: [] as string[],
  };
}

/** getContractMetadataBatch's item for an address that is no NFT contract. */
export function unsupportedContract(address: Address, error: unknown) {
  return contractOf(address, unsupported(error).tokenType);
}

/** getNFTMetadataBatch's item for a token of an address that is no NFT contract; the reason in `raw.error`. */
export function unsupportedNft(address: Address, tokenId: bigint, error: unknown) {
  const { tokenType, message: reason } = unsupported(error);
  return {
    contract: contractOf(address, tokenType),
    tokenId: tokenId.toString(),
    tokenType,
    name: null,
    description: null,
    tokenUri: null,
    image: { cachedUrl: null, thumbnailUrl: null, pngUrl: null, contentType: null, size: null, originalUrl: null },
    raw: { tokenUri: null, metadata: {}, error: reason },
    collection: null,
    mint: { mintAddress: null, blockNumber: null, timestamp: null, transactionHash: null },
    owners: null,
    timeLastUpdated: null,
  };
}
