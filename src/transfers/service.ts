import type { Network } from '../chains/registry.ts';
import { AppError, invalidRequest, notFound } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import type { TokenFactsLookup } from '../tokens/token-facts.ts';
import type { TransferCategory } from './categories.ts';
import { decodePageKey, encodePageKey } from './page-key.ts';
import { queryTransfers, type TransferFilter, type TransferRow, transferFingerprint } from './query.ts';
import type { SortOrder } from './transfer-sql.ts';

export type Direction = 'in' | 'out' | 'both';

/** `GET /v1/transfers` parameters, parsed (addresses lower-case). */
export interface TransfersRequest {
  readonly address: string;
  readonly direction: Direction;
  readonly categories: readonly TransferCategory[];
  readonly contract?: string;
  readonly fromBlock?: number;
  readonly toBlock?: number;
  readonly order: SortOrder;
  readonly limit: number;
  readonly pageKey?: string;
  /** Leave out transfers of tokens and NFTs judged spam (docs/spam.md). */
  readonly excludeSpam?: boolean;
}

/** The token and NFT contracts of an address judged spam (its holdings' verdicts). */
export type SpamContractsOf = (network: Network, address: string) => Promise<string[]>;

export interface TransferItem {
  id: string;
  block_number: number;
  block_timestamp: string;
  tx_hash: string;
  log_index: number | null;
  from: string;
  to: string;
  category: TransferCategory;
  contract: string | null;
  value: string;
  token_id: string | null;
  decimals: number | null;
  symbol: string | null;
}

export interface TransfersAnswer {
  transfers: TransferItem[];
  page_key?: string;
}

const nativeDecimals = 18;
const tokenCategories = new Set<TransferCategory>(['erc20', 'erc721', 'erc1155']);

/**
 * The transfers API over the index's transfer tables (src/transfers/query.ts). ERC-20 rows whose token
 * the service has not described yet get their symbol and decimals from `tokenFacts` (read and stored
 * once per token), so the next pages join them from the table.
 */
export function createTransferService(deps: { db: Database; tokenFacts?: TokenFactsLookup; spamContractsOf?: SpamContractsOf }) {
  return {
    async list(network: Network, request: TransfersRequest): Promise<TransfersAnswer> {
      if (!network.config.indexer.enabled) throw notIndexed(network);
      const excludeContracts =
        request.excludeSpam && deps.spamContractsOf ? await deps.spamContractsOf(network, request.address) : undefined;
      const filter = { ...filterOf(network, request), ...(request.excludeSpam ? { excludeSpam: true, excludeContracts } : {}) };
      const fingerprint = transferFingerprint(filter);
      const after = request.pageKey === undefined ? undefined : decodePageKey(request.pageKey, fingerprint);
      const page = await queryTransfers(deps.db, filter, { limit: request.limit, after });
      if (page.rows.length === 0 && after === undefined && !(await hasIndexedBlock(deps.db, filter.network))) {
        throw new AppError('service_unavailable', `the index of ${filter.network} has not started yet; retry in a few seconds`);
      }
      const rows = deps.tokenFacts ? await withTokenFacts(deps.tokenFacts, network, page.rows) : page.rows;
      const transfers = rows.map((row) => toItem(row, network.config.nativeSymbol));
      return page.next ? { transfers, page_key: encodePageKey(page.next, fingerprint) } : { transfers };
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;

function filterOf(network: Network, request: TransfersRequest): TransferFilter {
  if (request.fromBlock !== undefined && request.toBlock !== undefined && request.fromBlock > request.toBlock) {
    throw invalidRequest('to_block', `${request.toBlock} is below from_block ${request.fromBlock}`);
  }
  const { address, direction } = request;
  // A contract names a token: transfers of the chain's own coin have none, so they cannot match it.
  const categories = request.contract ? request.categories.filter((c) => tokenCategories.has(c)) : request.categories;
  return {
    network: `${network.config.chain}/${network.config.network}`,
    ...(direction === 'both' ? { party: address } : direction === 'out' ? { from: address } : { to: address }),
    categories,
    ...(request.contract ? { contracts: [request.contract] } : {}),
    fromBlock: request.fromBlock,
    toBlock: request.toBlock,
    order: request.order,
  };
}

/** ERC-20 rows without symbol or decimals, completed from the token's metadata where it is a token. */
async function withTokenFacts(tokenFacts: TokenFactsLookup, network: Network, rows: readonly TransferRow[]) {
  const unknown = rows.filter(
    (row) => row.category === 'erc20' && row.contract && (row.decimals === null || row.symbol === null),
  );
  if (unknown.length === 0) return rows;
  const facts = await tokenFacts.lookup(
    network,
    unknown.map((row) => row.contract!),
  );
  return rows.map((row) => {
    const known = row.category === 'erc20' && row.contract ? facts.get(row.contract) : undefined;
    return known ? { ...row, decimals: row.decimals ?? known.decimals, symbol: row.symbol ?? known.symbol } : row;
  });
}

async function hasIndexedBlock(db: Database, network: string): Promise<boolean> {
  const row = await db.selectFrom('index_blocks').select('number').where('network', '=', network).limit(1).executeTakeFirst();
  return row !== undefined;
}

function notIndexed(network: Network): AppError {
  const id = `${network.config.chain}/${network.config.network}`;
  return notFound(`transfers come from the chain index, and ${id} is not indexed (set indexer.enabled for it)`);
}

/** A stable identifier of the transfer: the transaction, then what inside it moved value. */
function idOf(row: TransferRow): string {
  if (row.category === 'native') return `${row.txHash}:native`;
  if (row.category === 'internal') return `${row.txHash}:internal:${row.tracePath}`;
  if (row.category === 'erc1155') return `${row.txHash}:log:${row.logIndex}:${row.batchIndex}`;
  return `${row.txHash}:log:${row.logIndex}`;
}

function toItem(row: TransferRow, nativeSymbol: string): TransferItem {
  const coin = row.category === 'native' || row.category === 'internal';
  return {
    id: idOf(row),
    block_number: row.blockNumber,
    block_timestamp: row.blockTimestamp.toISOString(),
    tx_hash: row.txHash,
    log_index: row.logIndex,
    from: row.from,
    to: row.to,
    category: row.category,
    contract: row.contract,
    value: row.value,
    token_id: row.tokenId,
    decimals: coin ? nativeDecimals : row.decimals,
    symbol: coin ? nativeSymbol : row.symbol,
  };
}
