import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import { notFound } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import type { GasPriceService } from './service.ts';

const Estimate = Type.Object({
  max_fee_gwei: Type.String({ description: 'Decimal gwei, exact' }),
  max_priority_fee_gwei: Type.String({ description: 'Decimal gwei, exact' }),
  estimated_seconds: Type.Integer(),
});

const GasPricesResponse = Type.Object({
  chain: Type.String(),
  block_number: Type.Integer({ description: 'The newest block the estimates come from' }),
  base_fee_gwei: Type.String({ description: 'Base fee of the next block, decimal gwei' }),
  estimates: Type.Object({ slow: Estimate, standard: Estimate, fast: Estimate }),
  updated_at: Type.String({ format: 'date-time' }),
  l1_data_fee: Type.Optional(
    Type.Object(
      {
        estimated_wei_per_transfer: Type.String({
          description: "An ERC-20 transfer's L1 data fee (OP-stack) or L1 component (Arbitrum), decimal wei",
        }),
        updated_at: Type.String({ format: 'date-time' }),
      },
      { description: "Rollups only: the L1 part of a transaction's cost, from the chain's own oracle. See docs/gas-prices.md." },
    ),
  ),
});

/** `GET /v1/gas/{chain}/prices` (scope data:read). Registered inside the /v1 guard's scope. */
export async function gasRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; gas: GasPriceService }) {
  app.get(
    '/v1/gas/:chain/prices',
    {
      config: { computeUnits: restComputeUnits['gas.prices'], methodName: 'gas.prices', scope: 'data:read' },
      schema: {
        summary: 'Gas prices: slow, standard and fast EIP-1559 fees',
        description:
          'From eth_feeHistory over the last 20 blocks (10th/50th/90th percentile tips) and the next block base fee; computed once per block. See docs/gas-prices.md.',
        tags: ['gas'],
        params: Type.Object({ chain: Type.String({ description: 'Chain, e.g. ethereum' }) }),
        querystring: Type.Object({
          network: Type.Optional(
            Type.String({ description: "A network of the chain; default: the key's mainnet (live) or first testnet (test)" }),
          ),
        }),
        response: { 200: GasPricesResponse, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { chain } = request.params as { chain: string };
      const { network } = request.query as { network?: string };
      const target = resolveRestNetwork(deps.chains.list(), principal, chain, network);
      if (target.config.kind !== 'evm')
        throw notFound(`gas prices are for EVM chains; '${chain}' is a ${target.config.kind} chain`);
      return deps.gas.prices(target);
    },
  );
}
