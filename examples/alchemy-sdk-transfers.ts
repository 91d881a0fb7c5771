// Alchemy's SDK pointed at Blockyard: only the URL changes (the key is in its path). Its `core` enhanced
// methods (getAssetTransfers, getTokenBalances, getTokenMetadata, getTransactionReceipts) are answered
// by Blockyard from its own index. Run against `npm start`:
//   BLOCKYARD_KEY=$(cat .blockyard/dev-api-key) npx tsx examples/alchemy-sdk-transfers.ts 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC
// On another address or port, BLOCKYARD_URL is the service's base URL (default http://127.0.0.1:8080).
import { Alchemy, AssetTransfersCategory, SortingOrder } from 'alchemy-sdk';

/** The transfers an address received, every page of them (followed by pageKey). */
export async function receivedTransfers(alchemy: Alchemy, address: string) {
  const transfers = [];
  let pageKey: string | undefined;
  do {
    const page = await alchemy.core.getAssetTransfers({
      toAddress: address,
      category: [
        AssetTransfersCategory.EXTERNAL,
        AssetTransfersCategory.INTERNAL,
        AssetTransfersCategory.ERC20,
        AssetTransfersCategory.ERC721,
        AssetTransfersCategory.ERC1155,
      ],
      order: SortingOrder.ASCENDING,
      withMetadata: true,
      maxCount: 100,
      ...(pageKey ? { pageKey } : {}),
    });
    transfers.push(...page.transfers);
    pageKey = page.pageKey;
  } while (pageKey);
  return transfers;
}

/** Every ERC-20 the address ever held, with its balance in token units (zero balances left out). */
export async function tokenHoldings(alchemy: Alchemy, address: string) {
  const { tokenBalances } = await alchemy.core.getTokenBalances(address);
  const held = tokenBalances.filter((entry) => entry.tokenBalance !== null && BigInt(entry.tokenBalance) > 0n);
  return Promise.all(
    held.map(async (entry) => {
      const token = await alchemy.core.getTokenMetadata(entry.contractAddress);
      const amount = BigInt(entry.tokenBalance!);
      return { contract: entry.contractAddress, symbol: token.symbol, amount, decimals: token.decimals };
    }),
  );
}

/** The receipts of the block a transaction landed in. */
export async function receiptsOfBlock(alchemy: Alchemy, blockNumber: string) {
  const { receipts } = await alchemy.core.getTransactionReceipts({ blockNumber });
  return receipts ?? [];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080';
  const key = process.env.BLOCKYARD_KEY;
  if (!key) throw new Error('set BLOCKYARD_KEY to an API key (e.g. $(cat .blockyard/dev-api-key))');
  const address = process.argv[2] ?? '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
  const alchemy = new Alchemy({ url: `${base}/v1/rpc/ethereum/devnet/${key}` });
  const transfers = await receivedTransfers(alchemy, address);
  for (const t of transfers) console.log(t.metadata.blockTimestamp, t.category, t.value ?? t.tokenId, t.asset ?? '', 'from', t.from);
  console.log(await tokenHoldings(alchemy, address));
  const last = transfers.at(-1);
  if (last) console.log(`${(await receiptsOfBlock(alchemy, last.blockNum)).length} receipts in block ${Number(last.blockNum)}`);
}
