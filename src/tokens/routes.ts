import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import { notFound } from '../core/errors.ts';
import { parseAddressParam } from '../http/address-param.ts';
import { paginationQuery } from '../http/pagination.ts';
import { everyContract, namedContract } from '../http/route-restrictions.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import type { TokenService } from './service.ts';

/** A string, or null when it is unknown (design.md: unknown prices are null, never invented). */
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const spamFields = {
  is_spam: Type.Boolean({ description: 'The spam verdict (docs/spam.md)' }),
  spam_reasons: Type.Array(Type.String(), {
    description: 'Reason codes found, e.g. url_in_name, airdrop_fanout, scam_bytecode, operator_deny (docs/spam.md)',
  }),
};

const TokenBalance = Type.Object({
  contract: Type.String({ description: 'Token contract, lower-case' }),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  balance: Type.String({ description: 'Decimal string in the smallest unit' }),
  formatted_balance: Type.String({ description: 'balance / 10^decimals, exact decimal string' }),
  usd_value: NullableString('USD value, rounded half up to 6 decimals; null when the price is unknown'),
  logo_url: NullableString('From the configured token list; null when it has none'),
  ...spamFields,
});

const TokenBalances = Type.Object({
  address: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  block_number: Type.Integer({ description: 'The newest indexed block; every balance equals balanceOf at this block' }),
  tokens: Type.Array(TokenBalance),
  page: Type.Integer(),
  total: Type.Integer({ description: 'Number of non-zero token balances' }),
});

const TokenMetadata = Type.Object({
  contract: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  total_supply: Type.String({ description: 'totalSupply() at block_number, smallest unit' }),
  formatted_total_supply: Type.String({ description: 'Exact decimal string' }),
  price_usd: NullableString('From the configured price sources; null when unknown'),
  market_cap_usd: NullableString('total supply x price, rounded half up to 6 decimals; null when unknown'),
  logo_url: NullableString('From the configured token list; null when it has none'),
  ...spamFields,
  block_number: Type.Integer({
    description: 'Block the total supply and price were read at: the newest indexed block, else the head',
  }),
});

const networkQuery = {
  network: Type.Optional(
    Type.String({ description: "A network of the chain; default: the key's mainnet (live) or first testnet (test)" }),
  ),
};

/** `GET /v1/tokens/{chain}/balances/{address}` and `.../metadata/{contract}` (scope data:read). */
export async function tokenRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; tokens: TokenService }) {
  function evmNetwork(request: FastifyRequest, chain: string, network: string | undefined) {
    const principal = request.principal!;
    const target = resolveRestNetwork(deps.chains.list(), principal, chain, network);
    if (target.config.kind !== 'evm') throw notFound(`token data is for EVM chains; '${chain}' is a ${target.config.kind} chain`);
    return target;
  }

  app.get(
    '/v1/tokens/:chain/balances/:address',
    {
      config: {
        computeUnits: restComputeUnits['tokens.balances'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'tokens.balances',
        contracts: everyContract,
      },
      schema: {
        summary: 'ERC-20 token balances of an address',
        description:
          'Non-zero balances of every token the index has seen the address receive or send, read with balanceOf at block_number (the newest indexed block), ordered by contract address. See docs/tokens.md.',
        tags: ['tokens'],
        params: Type.Object({
          chain: Type.String({ description: 'Chain, e.g. ethereum' }),
          address: Type.String({ description: 'Holder, 0x-prefixed (mixed case must pass EIP-55)' }),
        }),
        querystring: Type.Object({
          ...paginationQuery(50),
          ...networkQuery,
          exclude_spam: Type.Optional(Type.Boolean({ description: 'true: leave out tokens judged spam (docs/spam.md)' })),
        }),
        response: { 200: TokenBalances, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { chain, address } = request.params as { chain: string; address: string };
      const query = request.query as { network?: string; page: number; limit: number; exclude_spam?: boolean };
      const holder = parseAddressParam('address', address);
      return deps.tokens.balances(evmNetwork(request, chain, query.network), holder, {
        page: query.page,
        limit: query.limit,
        excludeSpam: query.exclude_spam === true,
      });
    },
  );

  app.get(
    '/v1/tokens/:chain/metadata/:contract',
    {
      config: {
        computeUnits: restComputeUnits['tokens.metadata'],
        scope: 'data:read',
        methodName: 'tokens.metadata',
        contracts: namedContract('contract', 'params'),
      },
      schema: {
        summary: 'ERC-20 token metadata, supply and price',
        description:
          'Name, symbol and decimals (cached), total supply read at block_number, USD price from the configured sources (null when unknown), logo from the token list. 404 for an address without code or a contract that is not an ERC-20 token.',
        tags: ['tokens'],
        params: Type.Object({
          chain: Type.String({ description: 'Chain, e.g. ethereum' }),
          contract: Type.String({ description: 'Token contract, 0x-prefixed (mixed case must pass EIP-55)' }),
        }),
        querystring: Type.Object(networkQuery),
        response: { 200: TokenMetadata, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { chain, contract } = request.params as { chain: string; contract: string };
      const { network } = request.query as { network?: string };
      const token = parseAddressParam('contract', contract);
      return deps.tokens.metadata(evmNetwork(request, chain, network), token);
    },
  );
}
