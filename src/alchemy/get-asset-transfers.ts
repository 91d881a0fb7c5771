import type { Network } from '../chains/registry.ts';
import { AppError } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { createTokenStore } from '../tokens/store.ts';
import type { TokenFactsLookup } from '../tokens/token-facts.ts';
import { decodePageKey, encodePageKey } from '../transfers/page-key.ts';
import { transferFingerprint } from '../transfers/query.ts';
import { type AssetTransferItem, formatAssetTransfer } from './asset-transfer-items.ts';
import { readAssetTransfers } from './asset-transfers-page.ts';
import { parseAssetTransfersParams } from './asset-transfers-params.ts';
import type { NftSymbolLookup } from './nft-symbols.ts';

export interface AssetTransfersResult {
  transfers: AssetTransferItem[];
  pageKey?: string;
}

export interface AssetTransfersDeps {
  readonly db: Database;
  readonly tokenFacts: TokenFactsLookup;
  readonly nftSymbols: NftSymbolLookup;
}

/**
 * `alchemy_getAssetTransfers`: the index's transfers (the query layer of `GET /v1/transfers`) in
 * Alchemy's shape. `fromAddress` and `toAddress` both hold when both are given; `contractAddresses`
 * filters token transfers only. Paged by key: `pageKey` is the last item's place and the query's
 * fingerprint (a key from another query is -32602), `maxCount` may change between pages.
 */
export async function getAssetTransfers(
  deps: AssetTransfersDeps,
  network: Network,
  params: unknown,
): Promise<AssetTransfersResult> {
  const id = `${network.config.chain}/${network.config.network}`;
  const store = createTokenStore(deps.db);
  const head = async () => {
    const indexed = await store.indexedHead(id);
    if (indexed === undefined) throw indexNotStarted(id);
    return Number(indexed);
  };
  const request = await parseAssetTransfersParams(id, params, head);
  const fingerprint = transferFingerprint(request.filter);
  const after = request.pageKey === undefined ? undefined : decodePageKey(request.pageKey, fingerprint, 'pageKey');
  const page = await readAssetTransfers(deps.db, request.filter, request.maxCount, after);
  if (page.groups.length === 0 && after === undefined && (await store.indexedHead(id)) === undefined) {
    throw indexNotStarted(id);
  }
  const unknownTokens = page.groups.flatMap(([row]) =>
    row!.category === 'erc20' && row!.decimals === null && row!.contract !== null ? [row!.contract] : [],
  );
  const nftContracts = page.groups.flatMap(([row]) =>
    (row!.category === 'erc721' || row!.category === 'erc1155') && row!.contract !== null ? [row!.contract] : [],
  );
  const [learned, nftSymbols] = await Promise.all([
    unknownTokens.length === 0 ? new Map() : deps.tokenFacts.lookup(network, unknownTokens),
    nftContracts.length === 0 ? new Map() : deps.nftSymbols.lookup(network, nftContracts),
  ]);
  const context = { nativeSymbol: network.config.nativeSymbol, withMetadata: request.withMetadata, learned, nftSymbols };
  const transfers = page.groups.map((group) => formatAssetTransfer(group, context));
  return page.next === undefined ? { transfers } : { transfers, pageKey: encodePageKey(page.next, fingerprint) };
}

function indexNotStarted(id: string): AppError {
  return new AppError('service_unavailable', `the index of ${id} has not started yet; retry in a few seconds`);
}
