import { type Address, encodeFunctionData, erc20Abi, type Hex, numberToHex, type PublicClient, pad } from 'viem';
import type { Network } from '../chains/registry.ts';
import { AppError, invalidRequest } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { multicallRaw } from '../tokens/multicall.ts';
import { decodeWord } from '../tokens/token-text.ts';
import { fingerprintOf } from '../transfers/page-key.ts';
import { decodeHoldingsPageKey, encodeHoldingsPageKey } from './holdings-page-key.ts';
import { paramsObject, parseAddress, parseAddressList, parseQuantity, positionalParams, quote } from './rpc-params.ts';

export interface TokenBalanceItem {
  contractAddress: string;
  /** 32 bytes of hex, as Alchemy writes it; null when balanceOf failed. */
  tokenBalance: Hex | null;
  error: string | null;
}

export interface TokenBalancesResult {
  address: string;
  tokenBalances: TokenBalanceItem[];
  pageKey?: string;
}

export interface TokenBalancesDeps {
  readonly db: Database;
  readonly clientFor: (network: Network) => PublicClient;
}

/** alchemy-sdk refuses more than 1,500 contracts before sending; so do we. */
const maxContracts = 1500;
/** Alchemy's page of the `erc20` form: 100 tokens. */
const maxPageSize = 100;

/**
 * `alchemy_getTokenBalances`: `[address, [contracts]]` reads balanceOf of each (null and the error for
 * one that fails, as Alchemy documents); `[address, "erc20"]` (the default) every token the index saw
 * the address send or receive, by contract address, 100 a page with `{pageKey, maxCount}` as third
 * param, leaving out a contract whose balanceOf fails: it emitted ERC-20 transfer events without being
 * a token one can hold (an airdrop of a broken or hostile contract), and a null there would make
 * alchemy-sdk's getTokensForOwner throw for every address it was sent to. Balances are read at the
 * chain's latest block in one Multicall3 call per 500 tokens; zero balances are listed too, as Alchemy does.
 */
export async function getTokenBalances(deps: TokenBalancesDeps, network: Network, params: unknown): Promise<TokenBalancesResult> {
  const [rawAddress, selection = 'erc20', options] = positionalParams(params, 1, 3);
  const address = parseAddress('params[0]', rawAddress);
  if (Array.isArray(selection)) {
    if (options !== undefined) throw invalidRequest('params[2]', 'options are only taken with "erc20"');
    const contracts = parseAddressList('params[1]', selection, maxContracts);
    if (contracts.length === 0) throw invalidRequest('params[1]', 'holds no contract address');
    return { address, tokenBalances: await readBalances(deps, network, address, contracts) };
  }
  if (selection === 'DEFAULT_TOKENS') {
    throw invalidRequest(
      'params[1]',
      '"DEFAULT_TOKENS" (a hosted top-100 list) is not served here: pass "erc20" or a list of contracts',
    );
  }
  if (selection === 'NATIVE_TOKEN') {
    throw invalidRequest(
      'params[1]',
      '"NATIVE_TOKEN" is not served here: read the native balance with eth_getBalance; pass "erc20" or a list of contracts for tokens',
    );
  }
  if (selection !== 'erc20') {
    throw invalidRequest('params[1]', `${quote(selection)} is neither a list of contracts nor "erc20"`);
  }
  return heldTokenBalances(deps, network, address, options);
}

async function heldTokenBalances(deps: TokenBalancesDeps, network: Network, address: string, rawOptions: unknown) {
  const id = `${network.config.chain}/${network.config.network}`;
  if (!network.config.indexer.enabled) {
    throw invalidRequest(
      'params[1]',
      `"erc20" lists the tokens the chain index saw, and ${id} is not indexed: pass a list of contracts`,
    );
  }
  const options = rawOptions === undefined ? {} : paramsObject('params[2]', rawOptions, ['pageKey', 'maxCount']);
  const pageSize = options.maxCount === undefined ? maxPageSize : parseQuantity('maxCount', options.maxCount, maxPageSize);
  if (pageSize === 0) throw invalidRequest('maxCount', 'must be at least 1 (0x1)');
  const fingerprint = fingerprintOf(['alchemy_getTokenBalances', id, address]);
  if (options.pageKey !== undefined && typeof options.pageKey !== 'string') throw invalidRequest('pageKey', 'must be a string');
  const after = options.pageKey === undefined ? undefined : decodeHoldingsPageKey(options.pageKey, fingerprint);
  const held = await heldContracts(deps.db, id, address, after, pageSize + 1);
  if (held.length === 0 && after === undefined && !(await hasIndexedBlock(deps.db, id))) {
    throw new AppError('service_unavailable', `the index of ${id} has not started yet; retry in a few seconds`);
  }
  const contracts = held.slice(0, pageSize);
  const read = contracts.length === 0 ? [] : await readBalances(deps, network, address, contracts);
  const tokenBalances = read.filter((item) => item.tokenBalance !== null);
  const more = held.length > pageSize;
  return { address, tokenBalances, ...(more ? { pageKey: encodeHoldingsPageKey(contracts.at(-1)!, fingerprint) } : {}) };
}

/** Contracts the index saw the holder send or receive, by address, after the page key's. */
async function heldContracts(db: Database, network: string, holder: string, after: string | undefined, limit: number) {
  let query = db
    .selectFrom('token_holdings')
    .select('contract')
    .where('network', '=', network)
    .where('holder', '=', holder)
    .orderBy('contract')
    .limit(limit);
  if (after !== undefined) query = query.where('contract', '>', after);
  return (await query.execute()).map((row) => row.contract);
}

async function hasIndexedBlock(db: Database, network: string): Promise<boolean> {
  return (
    (await db.selectFrom('index_blocks').select('number').where('network', '=', network).limit(1).executeTakeFirst()) !==
    undefined
  );
}

async function readBalances(deps: TokenBalancesDeps, network: Network, holder: string, contracts: readonly string[]) {
  const client = deps.clientFor(network);
  const callData = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });
  const block = await client.getBlockNumber({ cacheTime: 0 });
  const results = await multicallRaw(
    client,
    contracts.map((target) => ({ target: target as Address, callData })),
    block,
  );
  return contracts.map((contractAddress, i): TokenBalanceItem => {
    const result = results[i];
    const amount = result?.success ? decodeWord(result.returnData) : undefined;
    if (amount === undefined) {
      const error = result?.success ? 'balanceOf returned no amount (not an ERC-20 contract)' : 'balanceOf reverted';
      return { contractAddress, tokenBalance: null, error };
    }
    return { contractAddress, tokenBalance: pad(numberToHex(amount), { size: 32 }), error: null };
  });
}
