import type { Logger } from 'pino';
import { type Address, encodeFunctionData, erc20Abi, formatUnits, type PublicClient } from 'viem';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { pageWindow } from '../http/pagination.ts';
import type { SpamReason } from '../spam/reasons.ts';
import type { SpamService } from '../spam/service.ts';
import type { SpamFlags } from '../spam/verdict.ts';
import { multicallRaw } from './multicall.ts';
import { createConfiguredPriceSource } from './prices/configured-price-source.ts';
import type { PriceSource } from './prices/price-source.ts';
import type { StaticPriceEntry } from './prices/static-price-source.ts';
import { createTokenStore, type TokenStore } from './store.ts';
import { emptyTokenList, loadTokenList, type TokenList } from './token-list.ts';
import { createTokenMetadataCache, type TokenFacts, type TokenMetadataCache } from './token-metadata-cache.ts';
import { probeTokens } from './token-probe.ts';
import { decodeWord } from './token-text.ts';
import { usdValue } from './usd-value.ts';

export interface TokenBalance {
  contract: string;
  symbol: string;
  name: string;
  decimals: number;
  balance: string;
  formatted_balance: string;
  usd_value: string | null;
  logo_url: string | null;
  is_spam: boolean;
  spam_reasons: SpamReason[];
}

export interface TokenBalances {
  address: string;
  chain: string;
  network: string;
  block_number: number;
  tokens: TokenBalance[];
  page: number;
  total: number;
}

export interface TokenMetadata {
  contract: string;
  chain: string;
  network: string;
  name: string;
  symbol: string;
  decimals: number;
  total_supply: string;
  formatted_total_supply: string;
  price_usd: string | null;
  market_cap_usd: string | null;
  logo_url: string | null;
  is_spam: boolean;
  spam_reasons: SpamReason[];
  block_number: number;
}

export interface TokenService {
  /** Non-zero ERC-20 balances at the newest indexed block, by contract address, one page of them. */
  balances(network: Network, holder: Address, query: BalancesQuery): Promise<TokenBalances>;
  metadata(network: Network, contract: Address): Promise<TokenMetadata>;
  /** The tokens the index has seen the holder send or receive that are judged spam (docs/spam.md). */
  spamContractsOf(network: Network, holder: string): Promise<string[]>;
  /** A fixed USD price added at run time (the demo's sample token). */
  addStaticPrice(entry: StaticPriceEntry): void;
  /**
   * The USD price of the network's own coin (a `tokens.prices` or `price_feeds` entry with
   * `contract: native`); the embedded devnet's ETH is $3,000 unless one is set. Null when unknown.
   */
  nativeUsdPrice(network: Network): Promise<string | null>;
}

export interface BalancesQuery {
  page: number;
  limit: number;
  /** Leave out the tokens judged spam (docs/spam.md). */
  excludeSpam?: boolean;
}

/** The embedded devnet's ETH price when the config names none (design.md). */
export const devnetNativeUsd = '3000';

const totalSupplyCall = encodeFunctionData({ abi: erc20Abi, functionName: 'totalSupply' });

/** What the token answers are read with, wired once by `createTokenService`. */
interface TokenReads {
  logger: Logger;
  clientFor: (network: Network) => PublicClient;
  store: TokenStore;
  cache: TokenMetadataCache;
  prices: PriceSource;
  tokenList: TokenList;
  spam: SpamService | undefined;
}

/** Token balances and metadata. Reads the token list now: a bad file stops the start. */
export function createTokenService(deps: { ctx: Context; db: Database; spam?: SpamService }): TokenService {
  const { config } = deps.ctx;
  const logger = deps.ctx.logger.child({ component: 'tokens' });
  const tokenList = config.tokens.tokenList
    ? loadTokenList(config.tokens.tokenList, { ipfsGateway: config.nfts.ipfsGateway })
    : emptyTokenList;
  const clientFor = publicClientsByNetwork();
  const store = createTokenStore(deps.db);
  const cache = createTokenMetadataCache(store);
  const prices = createConfiguredPriceSource({ entries: config.tokens.prices, clientFor, logger });
  const reads: TokenReads = { logger, clientFor, store, cache, prices: prices.source, tokenList, spam: deps.spam };

  return {
    addStaticPrice: (entry) => prices.statics.add(entry),
    nativeUsdPrice: (network) => nativeUsdPrice(prices.source, network),
    balances: (network, holder, query) => tokenBalances(reads, network, holder, query),
    metadata: (network, contract) => tokenMetadata(reads, network, contract),
    spamContractsOf: (network, holder) => spamContractsOf(reads, network, holder),
  };
}

async function nativeUsdPrice(prices: PriceSource, network: Network): Promise<string | null> {
  const price = await prices.usdPrice(network, 'native');
  return price ?? (network.config.embedded ? devnetNativeUsd : null);
}

/** Chain reads that fail for another reason than a revert are the upstream's fault: 503, retryable. */
async function fromChain<T>(logger: Logger, work: Promise<T>, what: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) throw error;
    logger.warn({ err: error }, `chain read failed: ${what}`);
    throw new AppError('service_unavailable', `the chain's upstream did not answer (${what}); retry with exponential backoff`, {
      cause: error,
    });
  }
}

/** Metadata of the contracts that are ERC-20 tokens; the others are left out. */
async function tokenFacts(reads: TokenReads, network: Network, id: string, contracts: string[], blockNumber: bigint) {
  const { cache, logger } = reads;
  const facts = await cache.lookup(id, contracts);
  const unknown = contracts.filter((contract) => !facts.has(contract) && !cache.isKnownNotToken(id, contract));
  if (unknown.length === 0) return facts;
  const probes = await fromChain(
    logger,
    probeTokens(reads.clientFor(network), unknown as Address[], blockNumber),
    'token metadata',
  );
  const found = unknown.flatMap((contract, index) => {
    const probe = probes[index]!;
    if (probe.kind === 'erc20') return [{ contract, name: probe.name, symbol: probe.symbol, decimals: probe.decimals }];
    logger.debug({ network: id, contract, reason: probe.reason }, 'held contract is not an ERC-20 token');
    cache.markNotToken(id, contract);
    return [];
  });
  await cache.save(id, found);
  for (const { contract, ...rest } of found) facts.set(contract, rest);
  return facts;
}

async function usd(
  prices: PriceSource,
  network: Network,
  contract: string,
  amount: bigint,
  decimals: number,
  blockNumber: bigint,
) {
  const price = await prices.usdPrice(network, contract, { blockNumber });
  return { price, value: price === null ? null : usdValue(amount, decimals, price) };
}

async function tokenBalances(reads: TokenReads, network: Network, holder: Address, query: BalancesQuery): Promise<TokenBalances> {
  const { chain, network: name, chainId } = network.config;
  const id = `${chain}/${name}`;
  const { head, contracts } = await reads.store.headAndHoldings(id, holder);
  if (head === undefined) throw indexMissing(network);
  const held = await nonZeroBalances(reads, network, holder, contracts, head);
  const facts = await tokenFacts(
    reads,
    network,
    id,
    held.map((entry) => entry.contract),
    head,
  );
  const known = held.filter((entry) => facts.has(entry.contract));
  const { offset, limit } = pageWindow(query);
  // The filter needs every token's verdict; without it, only the page's are read.
  const judged = query.excludeSpam ? known : known.slice(offset, offset + limit);
  const flags = await spamFlags(
    reads,
    network,
    judged.map(({ contract }) => ({ contract, ...facts.get(contract)! })),
  );
  const tokens = query.excludeSpam ? known.filter((entry) => !flags.get(entry.contract)?.is_spam) : known;
  const items = await Promise.all(
    tokens.slice(offset, offset + limit).map(async ({ contract, amount }): Promise<TokenBalance> => {
      const token: TokenFacts = facts.get(contract)!;
      return {
        contract,
        symbol: token.symbol,
        name: token.name,
        decimals: token.decimals,
        balance: amount.toString(),
        formatted_balance: formatUnits(amount, token.decimals),
        usd_value: (await usd(reads.prices, network, contract, amount, token.decimals, head)).value,
        logo_url: reads.tokenList.logoFor(chainId, contract),
        ...spamFields(flags.get(contract)),
      };
    }),
  );
  return {
    address: holder,
    chain,
    network: name,
    block_number: Number(head),
    tokens: items,
    page: query.page,
    total: tokens.length,
  };
}

/** `balanceOf` of each contract at the block, through Multicall3; contracts it is zero or unreadable for are left out. */
async function nonZeroBalances(reads: TokenReads, network: Network, holder: Address, contracts: string[], head: bigint) {
  const callData = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const results =
    contracts.length === 0
      ? []
      : await fromChain(
          reads.logger,
          multicallRaw(
            reads.clientFor(network),
            contracts.map((target) => ({ target: target as Address, callData })),
            head,
          ),
          'balanceOf',
        );
  return contracts.flatMap((contract, index) => {
    const result = results[index];
    const amount = result?.success ? decodeWord(result.returnData) : undefined;
    return amount !== undefined && amount > 0n ? [{ contract, amount }] : [];
  });
}

async function tokenMetadata(reads: TokenReads, network: Network, contract: Address): Promise<TokenMetadata> {
  const { chain, network: name, chainId } = network.config;
  const id = `${chain}/${name}`;
  const indexed = await reads.store.indexedHead(id);
  const head =
    indexed ?? (await fromChain(reads.logger, reads.clientFor(network).getBlockNumber({ cacheTime: 0 }), 'eth_blockNumber'));
  const { token, totalSupply } = await tokenAndSupply(reads, network, contract, head, indexed !== undefined);
  const { price, value } = await usd(reads.prices, network, contract, totalSupply, token.decimals, head);
  return {
    contract,
    chain,
    network: name,
    name: token.name,
    symbol: token.symbol,
    decimals: token.decimals,
    total_supply: totalSupply.toString(),
    formatted_total_supply: formatUnits(totalSupply, token.decimals),
    price_usd: price,
    market_cap_usd: value,
    logo_url: reads.tokenList.logoFor(chainId, contract),
    ...spamFields((await spamFlags(reads, network, [{ contract, ...token }])).get(contract)),
    block_number: Number(head),
  };
}

async function spamContractsOf(reads: TokenReads, network: Network, holder: string): Promise<string[]> {
  if (!reads.spam) return [];
  const id = `${network.config.chain}/${network.config.network}`;
  const { head, contracts } = await reads.store.headAndHoldings(id, holder);
  if (head === undefined || contracts.length === 0) return [];
  const facts = await tokenFacts(reads, network, id, contracts, head);
  const known = contracts.filter((contract) => facts.has(contract));
  const flags = await spamFlags(
    reads,
    network,
    known.map((contract) => ({ contract, ...facts.get(contract)! })),
  );
  return known.filter((contract) => flags.get(contract)?.is_spam);
}

/** The spam verdicts of tokens, by contract; none without a spam service. */
async function spamFlags(
  reads: TokenReads,
  network: Network,
  tokens: { contract: string; name: string; symbol: string }[],
): Promise<Map<string, SpamFlags>> {
  if (!reads.spam || tokens.length === 0) return new Map();
  return reads.spam.flags(
    network,
    tokens.map(({ contract, name, symbol }) => ({
      contract,
      kind: 'token' as const,
      describe: async () => ({ name, symbol }),
    })),
  );
}

function spamFields(flags: SpamFlags | undefined): { is_spam: boolean; spam_reasons: SpamReason[] } {
  return { is_spam: flags?.is_spam ?? false, spam_reasons: flags?.spam_reasons ?? [] };
}

/**
 * A known token's facts from the cache and its supply in one call; otherwise (or when that call fails)
 * the contract is probed, and 404 when it has no code or is not an ERC-20 token.
 */
async function tokenAndSupply(
  reads: TokenReads,
  network: Network,
  contract: Address,
  head: bigint,
  headIsIndexed: boolean,
): Promise<{ token: TokenFacts; totalSupply: bigint }> {
  const { logger, cache } = reads;
  const id = `${network.config.chain}/${network.config.network}`;
  const client = reads.clientFor(network);
  const token: TokenFacts | undefined = (await cache.lookup(id, [contract])).get(contract);
  if (token) {
    const [result] = await fromChain(
      logger,
      multicallRaw(client, [{ target: contract, callData: totalSupplyCall }], head),
      'totalSupply',
    );
    const totalSupply = result?.success ? decodeWord(result.returnData) : undefined;
    if (totalSupply !== undefined) return { token, totalSupply };
  }
  const [code, [probe]] = await fromChain(
    logger,
    Promise.all([client.getCode({ address: contract, blockNumber: head }), probeTokens(client, [contract], head)]),
    'token metadata',
  );
  const at = `block ${head}${headIsIndexed ? ', the newest indexed block' : ''}`;
  if (!code || code === '0x') throw notFound(`no contract at ${contract} on ${id} at ${at}`);
  if (probe?.kind !== 'erc20') throw notFound(`${contract} on ${id} is not an ERC-20 token: ${probe?.reason ?? 'unreadable'}`);
  const probed = { name: probe.name, symbol: probe.symbol, decimals: probe.decimals };
  await cache.save(id, [{ contract, ...probed }]);
  return { token: probed, totalSupply: probe.totalSupply };
}

/** Balances come from the index: without an indexed block there is nothing they could be valid at. */
function indexMissing(network: Network): AppError {
  const id = `${network.config.chain}/${network.config.network}`;
  if (!network.config.indexer.enabled) {
    return notFound(`token balances need the chain index, and ${id} is not indexed (set indexer.enabled for it)`);
  }
  return new AppError('service_unavailable', `the index of ${id} has not started yet; retry in a few seconds`);
}
