// The queries bench/data-queries.ts sends: every data query the API accepts, in the shapes a tenant
// can send them (alchemy_getAssetTransfers by contract alone, by address, both, in batches; GET
// /v1/transfers; token balances; the NFT lists), over the seeded tokens and holders.
import { type Answer, getRequest, type HttpRequest, rpcRequest, send } from './data-queries-client.ts';
import { seededAddress } from './data-queries-seed.ts';

export type ShapeGroup = 'baseline' | 'asset transfers' | 'batch' | 'transfers' | 'balances' | 'nfts';

export interface QueryShape {
  name: string;
  group: ShapeGroup;
  /** The request as the tenant with this key sends it. */
  request(key: string): HttpRequest;
}

/** The seeded tokens and holders the queries name. */
export const probes = {
  tokens: {
    'huge token (rank 1)': seededAddress('token', 1),
    'mid token (rank 50)': seededAddress('token', 50),
    'rare token (rank 2000)': seededAddress('token', 2000),
  },
  holders: {
    'router (rank 1)': seededAddress('holder', 1),
    'ordinary address (rank 5000)': seededAddress('holder', 5000),
  },
};

const huge = seededAddress('token', 1);
const mid = seededAddress('token', 50);
const rare = seededAddress('token', 2000);
const router = seededAddress('holder', 1);
export const ordinary = seededAddress('holder', 5000);
const bigNft = seededAddress('nft', 1);
const rareErc1155 = seededAddress('nft', 200);
const everything = ['external', 'internal', 'erc20', 'erc721', 'erc1155'];
const tokens = (ranks: number[]) => ranks.map((rank) => seededAddress('token', rank));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

type Params = Record<string, unknown>;

/** Every shape of phase A; `deep` holds the params of pages reached by following page keys (see reachPage). */
export function buildShapes(baseUrl: string, blocks: number, deep: DeepPages): QueryShape[] {
  const rpcUrl = `${baseUrl}/v1/rpc/ethereum/devnet`;
  const transfers = (params: Params): Params => ({ category: ['erc20'], maxCount: '0x64', ...params });
  const asset = (name: string, params: Params): QueryShape => ({
    name: `getAssetTransfers ${name}`,
    group: 'asset transfers',
    request: (key) => rpcRequest(rpcUrl, key, { method: 'alchemy_getAssetTransfers', params: [transfers(params)] }),
  });
  const batch = (name: string, list: Params[]): QueryShape => ({
    name: `batch of ${list.length} getAssetTransfers, ${name}`,
    group: 'batch',
    request: (key) =>
      rpcRequest(
        rpcUrl,
        key,
        list.map((params) => ({ method: 'alchemy_getAssetTransfers', params: [transfers(params)] })),
      ),
  });
  const rest = (group: ShapeGroup, name: string, path: string): QueryShape => ({
    name,
    group,
    request: (key) => getRequest(`${baseUrl}${path}`, key),
  });
  const rpc = (group: ShapeGroup, name: string, method: string, params: unknown[]): QueryShape => ({
    name,
    group,
    request: (key) => rpcRequest(rpcUrl, key, { method, params }),
  });
  // Alchemy's NFT v3 names under the JSON-RPC URL form: the key is in the path.
  const v3 = (name: string, query: string): QueryShape => ({
    name: `${name} ${query}`.replaceAll(bigNft, 'big NFT').replaceAll(router, 'router').replaceAll(ordinary, 'ordinary'),
    group: 'nfts',
    request: (key) => getRequest(`${baseUrl}/v1/rpc/ethereum/devnet/${key}/${name}?${query}`),
  });
  const middle = Math.floor(blocks / 2);
  const hex = (n: number) => `0x${n.toString(16)}`;
  const byAddress = `/v1/transfers/ethereum`;
  return [
    { name: 'GET /healthz (baseline)', group: 'baseline', request: () => getRequest(`${baseUrl}/healthz`) },
    asset('contract only: huge token', { contractAddresses: [huge] }),
    asset('contract only: rare token', { contractAddresses: [rare] }),
    asset('contract only: 10 tokens', { contractAddresses: tokens([1, 2, 5, 10, 50, 100, 500, 1000, 1500, 2000]) }),
    asset('contract only: 1000 tail tokens', { contractAddresses: tokens(range(1001, 1000)) }),
    asset('contract only: huge token, maxCount 0x3e8', { contractAddresses: [huge], maxCount: '0x3e8' }),
    asset('contract only: huge token, excludeZeroValue false', { contractAddresses: [huge], excludeZeroValue: false }),
    asset('contract only: rare token, order desc', { contractAddresses: [rare], order: 'desc' }),
    asset('contract only: huge token, 100 blocks', {
      contractAddresses: [huge],
      fromBlock: hex(middle),
      toBlock: hex(middle + 99),
    }),
    asset('contract only: rare token, half the blocks', {
      contractAddresses: [rare],
      fromBlock: hex(Math.floor(blocks / 4)),
      toBlock: hex(Math.floor((3 * blocks) / 4)),
    }),
    asset(`contract only: mid token, page ${deep.rpcPage} via pageKey`, deep.rpcParams),
    asset('contract only: rare token, all categories', { contractAddresses: [rare], category: everything }),
    asset('no address: external+internal', { category: ['external', 'internal'] }),
    asset('no address: erc721+erc1155', { category: ['erc721', 'erc1155'] }),
    asset('no address: erc20', {}),
    asset('no filter, all categories, excludeZeroValue false', { category: everything, excludeZeroValue: false }),
    asset('contract only: big NFT, erc721', { contractAddresses: [bigNft], category: ['erc721'] }),
    asset('contract only: rare ERC-1155, erc1155', { contractAddresses: [rareErc1155], category: ['erc1155'] }),
    asset('fromAddress router, all categories', { fromAddress: router, category: everything }),
    asset('fromAddress router, all categories, maxCount 0x3e8', { fromAddress: router, category: everything, maxCount: '0x3e8' }),
    asset('fromAddress ordinary, all categories', { fromAddress: ordinary, category: everything }),
    asset('toAddress ordinary, all categories, withMetadata', { toAddress: ordinary, category: everything, withMetadata: true }),
    asset('toAddress router, order desc', { toAddress: router, order: 'desc' }),
    asset('fromAddress router + rare token', { fromAddress: router, contractAddresses: [rare] }),
    asset('fromAddress router + toAddress ordinary', { fromAddress: router, toAddress: ordinary }),
    asset('fromAddress ordinary + huge token', { fromAddress: ordinary, contractAddresses: [huge] }),
    batch(
      '1 tail token each, maxCount 0x3e8',
      tokens(range(1951, 50)).map((t) => ({ contractAddresses: [t], maxCount: '0x3e8' })),
    ),
    batch(
      'fromAddress of 50 ordinary addresses',
      range(5000, 50).map((rank) => ({ fromAddress: seededAddress('holder', rank) })),
    ),
    rest('transfers', 'GET /v1/transfers ordinary, limit 50', `${byAddress}/${ordinary}?limit=50`),
    rest('transfers', 'GET /v1/transfers router, limit 50', `${byAddress}/${router}?limit=50`),
    rest('transfers', 'GET /v1/transfers router, contract=rare, limit 100', `${byAddress}/${router}?contract=${rare}&limit=100`),
    rest(
      'transfers',
      'GET /v1/transfers router, out, erc20, contract=rare',
      `${byAddress}/${router}?direction=out&category=erc20&contract=${rare}`,
    ),
    rest(
      'transfers',
      'GET /v1/transfers router, 100 blocks',
      `${byAddress}/${router}?from_block=${middle}&to_block=${middle + 99}`,
    ),
    rest('transfers', 'GET /v1/transfers router, desc, limit 100', `${byAddress}/${router}?order=desc&limit=100`),
    rest('transfers', `GET /v1/transfers router, page ${deep.restPage} via page_key`, deep.restPath),
    rest('transfers', 'GET /v1/transfers ordinary, contract=huge', `${byAddress}/${ordinary}?contract=${huge}`),
    rest('balances', 'GET /v1/tokens balances router, limit 100', `/v1/tokens/ethereum/balances/${router}?limit=100`),
    rest('balances', 'GET /v1/tokens balances ordinary', `/v1/tokens/ethereum/balances/${ordinary}`),
    rest('balances', 'GET /v1/tokens metadata huge token', `/v1/tokens/ethereum/metadata/${huge}`),
    rpc('balances', 'getTokenBalances router, erc20', 'alchemy_getTokenBalances', [router, 'erc20']),
    rpc('balances', 'getTokenBalances ordinary, erc20', 'alchemy_getTokenBalances', [ordinary, 'erc20']),
    rpc('balances', 'getTokenBalances router, 100 contracts', 'alchemy_getTokenBalances', [router, tokens(range(1, 100))]),
    rest('nfts', 'GET /v1/nfts owned router, limit 100', `/v1/nfts/ethereum/owned/${router}?limit=100`),
    rest('nfts', 'GET /v1/nfts collection big NFT', `/v1/nfts/ethereum/collection/${bigNft}`),
    v3('getNFTsForOwner', `owner=${router}`),
    v3('getNFTsForOwner', `owner=${router}&withMetadata=false`),
    v3('getNFTsForOwner', `owner=${ordinary}`),
    v3('getNFTsForOwner', `owner=${router}&withMetadata=false&excludeFilters[]=AIRDROPS`),
    v3('getNFTsForOwner', `owner=${router}&withMetadata=false&includeFilters[]=AIRDROPS`),
    v3('getNFTsForOwner', `owner=${router}&orderBy=transferTime`),
    v3('getNFTsForContract', `contractAddress=${bigNft}`),
    v3('getOwnersForContract', `contractAddress=${bigNft}`),
    v3('getOwnersForContract', `contractAddress=${bigNft}&includeCount=true`),
    v3('getOwnersForContract', `contractAddress=${bigNft}&withTokenBalances=true`),
    v3('getOwnersForNFT', `contractAddress=${bigNft}&tokenId=1`),
    v3('getContractMetadata', `contractAddress=${bigNft}`),
    v3('getNFTMetadata', `contractAddress=${bigNft}&tokenId=1`),
    v3('getContractsForOwner', `owner=${router}`),
    v3('getContractsForOwner', `owner=${router}&includeFilters[]=AIRDROPS`),
    v3('getContractsForOwner', `owner=${router}&orderBy=transferTime`),
  ];
}

/** The deep pages of phase A: their params once reached (or the first page's, with why it was not). */
export interface DeepPages {
  rpcPage: number;
  rpcParams: Params;
  restPage: number;
  restPath: string;
  /** Why a deep page could not be reached (its row then measures the page reached last). */
  notes: string[];
}

/** Follows pageKey (JSON-RPC) and page_key (REST) to the deep pages of phase A, each request bounded in time. */
export async function reachDeepPages(
  baseUrl: string,
  key: string,
  pages: number,
  limits: { timeoutMs: number; budgetMs: number },
): Promise<DeepPages> {
  const { timeoutMs } = limits;
  const end = performance.now() + limits.budgetMs;
  const notes: string[] = [];
  const stopped = (page: number, answer: Answer) =>
    performance.now() > end
      ? `page ${page + 1} not reached within ${limits.budgetMs / 1000} s`
      : answer.outcome === 'accepted'
        ? `the query has ${page} pages`
        : `page ${page + 1} not reached: ${answer.label} ${answer.message ?? ''}`;
  let rpcParams: Params = { contractAddresses: [mid], category: ['erc20'], maxCount: '0x64' };
  let rpcPage = 1;
  for (; rpcPage < pages; rpcPage++) {
    const call = { method: 'alchemy_getAssetTransfers', params: [rpcParams] };
    const answer = await send(rpcRequest(`${baseUrl}/v1/rpc/ethereum/devnet`, key, call), timeoutMs);
    const pageKey = (answer.body as { pageKey?: unknown } | undefined)?.pageKey;
    if (typeof pageKey !== 'string' || performance.now() > end) {
      notes.push(`getAssetTransfers mid token: ${stopped(rpcPage, answer)}`);
      break;
    }
    rpcParams = { ...rpcParams, pageKey };
  }
  const first = `/v1/transfers/ethereum/${router}?limit=50`;
  let restPath = first;
  let restPage = 1;
  for (; restPage < pages; restPage++) {
    const answer = await send(getRequest(`${baseUrl}${restPath}`, key), timeoutMs);
    const pageKey = (answer.body as { page_key?: unknown } | undefined)?.page_key;
    if (typeof pageKey !== 'string' || performance.now() > end) {
      notes.push(`GET /v1/transfers router: ${stopped(restPage, answer)}`);
      break;
    }
    restPath = `${first}&page_key=${encodeURIComponent(pageKey)}`;
  }
  return { rpcPage, rpcParams, restPage, restPath, notes };
}
