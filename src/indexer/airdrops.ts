import { type BlockFacts, type NftTransferFact, zeroAddress } from './decode-block.ts';

/** An NFT minted to `transfer.to` in a transaction another address sent: Alchemy's definition of an airdrop. */
export interface AirdropFact {
  readonly block: number;
  readonly transfer: NftTransferFact;
}

/** The block's airdrops: mints whose transaction's sender is not the recipient. Pure. */
export function airdropsOf(block: BlockFacts): AirdropFact[] {
  const senders = new Map(block.transactions.map((tx) => [tx.hash, tx.from]));
  return block.nftTransfers
    .filter((transfer) => {
      if (transfer.from !== zeroAddress) return false;
      const sender = senders.get(transfer.transactionHash);
      return sender !== undefined && sender !== transfer.to;
    })
    .map((transfer) => ({ block: block.number, transfer }));
}
