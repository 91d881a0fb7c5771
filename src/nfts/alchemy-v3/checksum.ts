import { getAddress } from 'viem';

/**
 * Alchemy's NFT API v3 writes every address it answers in its EIP-55 checksum form (v2 wrote lower
 * case). Blockyard keeps addresses in lower case, so the v3 answers checksum them on the way out;
 * alchemy-sdk keys verifyNftOwnership's map by the answer's contractAddress, so the case must match.
 */
export const checksummed = (address: string): string => getAddress(address);

const quotedLowerAddress = /"0x[0-9a-f]{40}"/g;

/** A JSON answer whose only 40-hex-digit strings are addresses (holders-json.ts), each checksummed. */
export const checksumAddressesInJson = (json: string): string =>
  json.replace(quotedLowerAddress, (quoted) => `"${getAddress(quoted.slice(1, -1))}"`);
