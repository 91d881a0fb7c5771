/** ERC-165 interface ids the token and NFT APIs ask contracts about (EIP-721, EIP-1155). */
export const erc721InterfaceId = '0x80ac58cd';
export const erc1155InterfaceId = '0xd9b67a26';
