// Alchemy's SDK (npm alchemy-sdk) pointed at Blockyard with nothing but a URL: the key is in its path.
// Run it: BLOCKYARD_URL=http://127.0.0.1:8080/v1/rpc/ethereum/devnet/svc_test_… \
//   node --import tsx examples/alchemy-sdk.ts [address]
// (the address defaults to the demo's dev account, 0xf39F…2266: start Blockyard with --demo to see its tokens).
// examples/alchemy-sdk-transfers.ts pages through every transfer, holdings and a block's receipts.
import { Alchemy, AssetTransfersCategory } from 'alchemy-sdk';

const demoDevAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** What a dapp typically asks: the head, an address's tokens, NFTs and collections, its recent incoming transfers. */
export async function runAlchemySdkExample(url: string, address = demoDevAccount, print = console.log): Promise<void> {
  // No apiKey and no network: every call goes to `url` (JSON-RPC) or `url/<method>` (the NFT API).
  const alchemy = new Alchemy({ url, maxRetries: 0 });

  print(`block number: ${await alchemy.core.getBlockNumber()}`);

  const balances = await alchemy.core.getTokenBalances(address);
  for (const token of balances.tokenBalances) {
    print(`token ${token.contractAddress}: ${BigInt(token.tokenBalance ?? '0x0')}`);
  }

  const { ownedNfts, totalCount } = await alchemy.nft.getNftsForOwner(address);
  print(`NFTs: ${totalCount}`);
  for (const nft of ownedNfts) {
    print(`nft ${nft.contract.address} #${nft.tokenId} x${nft.balance}: ${nft.name ?? '(no name yet)'} (${nft.tokenType})`);
  }

  // The same NFTs by collection, as a wallet's collections view shows them.
  const { contracts } = await alchemy.nft.getContractsForOwner(address);
  for (const collection of contracts) {
    print(`collection ${collection.address} ${collection.name ?? '(unnamed)'}: ${collection.numDistinctTokensOwned} tokens, ${collection.totalBalance} units`);
  }

  const transfers = await alchemy.core.getAssetTransfers({
    toAddress: address,
    category: [AssetTransfersCategory.EXTERNAL, AssetTransfersCategory.ERC20, AssetTransfersCategory.ERC721],
    maxCount: 5,
  });
  for (const transfer of transfers.transfers) {
    print(`transfer ${transfer.category} from ${transfer.from}: ${transfer.value ?? transfer.tokenId} ${transfer.asset ?? ''}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.BLOCKYARD_URL;
  if (!url) {
    console.error('set BLOCKYARD_URL to http://<host>:<port>/v1/rpc/<chain>/<network>/<your API key>');
    process.exit(1);
  }
  await runAlchemySdkExample(url, process.argv[2]);
}
