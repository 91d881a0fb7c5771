import { type BlockFacts, type NftTransferFact, zeroAddress } from './decode-block.ts';

/** An NFT minted to `transfer.to` in a transaction another address sent: Alchemy's definition of an airdrop. */
export interface AirdropFact {
  readonly block: number;
  readonly transfer: NftTransferFact;
}

/** The block's airdrops: mints whose transaction's sender is not the recipient. Pure. */
export function airdropsOf(block: BlockFacts): AirdropFact[] {
  const mints = block.nftTransfers.filter((transfer) => transfer.from === zeroAddress);
  // Most blocks of a backfill mint nothing: the senders are looked up only for those that do.
  if (mints.length === 0) return [];
  const senders = new Map(block.transactions.map((tx) => [tx.hash, tx.from]));
  return mints
    .filter((transfer) => {
      const sender = senders.get(transfer.transactionHash);
      return sender !== undefined && sender !== transfer.to;
    })
    .map((transfer) => ({ block: block.number, transfer }));
}
