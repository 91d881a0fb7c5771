import { checksumAddress } from '../../core/address-checksum.ts';

/**
 * Alchemy's NFT API v3 writes every address it answers in its EIP-55 checksum form (v2 wrote lower
 * case). Blockyard keeps addresses in lower case, so the v3 answers checksum them on the way out;
 * alchemy-sdk keys verifyNftOwnership's map by the answer's contractAddress, so the case must match.
 */
export const checksummed = (address: string): string => checksumAddress(address);
