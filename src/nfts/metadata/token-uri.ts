/**
 * ERC-1155 clients replace `{id}` in `uri(id)` with the token id as 64 lower-case hex digits, no 0x
 * (EIP-1155, "Metadata"). ERC-721 `tokenURI` is used as it is.
 * @example substituteTokenId('ipfs://Qm.../{id}.json', 10n) // 'ipfs://Qm.../000…000a.json'
 */
export function substituteTokenId(uri: string, tokenId: bigint): string {
  if (!uri.includes('{id}')) return uri;
  return uri.replaceAll('{id}', tokenId.toString(16).padStart(64, '0'));
}
