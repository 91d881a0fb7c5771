import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import { invalidRequest } from '../../core/errors.ts';
import { namedContract } from '../../http/route-restrictions.ts';
import { restComputeUnits } from '../../limits/compute-units.ts';
import type { SpamReports } from '../../spam/reports.ts';
import { networkId } from '../../spam/service.ts';
import { requiredAddress } from './params.ts';
import { evmNetwork, v3Base, v3Doc, v3Errors } from './route-parts.ts';
import { V3Params } from './schemas.ts';

const ReportSpamQuery = Type.Object({
  address: Type.Optional(
    Type.String({ maxLength: 100, description: 'The contract reported (required; alchemy-sdk sends it as contractAddress)' }),
  ),
  contractAddress: Type.Optional(Type.String({ maxLength: 100, description: "alchemy-sdk's name for address" })),
  isSpam: Type.Optional(Type.String({ maxLength: 5, description: 'true (the default) or false: the contract is not spam' })),
});

/**
 * Alchemy's reportSpam under the JSON-RPC URL form: the account's report that a contract is (or is
 * not) spam, recorded for the operator (GET /admin/spam/{chain}/{network}/reports). It changes no
 * verdict: one tenant cannot mark a contract spam for the others (docs/spam.md).
 */
export async function alchemyV3ReportSpamRoute(app: FastifyInstance, deps: { chains: ChainRegistry; reports: SpamReports }) {
  app.get(
    `${v3Base}/reportSpam`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.metadata'],
        scope: 'data:read',
        methodName: 'reportSpam',
        contracts: namedContract(['address', 'contractAddress']),
      },
      schema: {
        ...v3Doc(
          'Report a contract as spam, or as not spam (Alchemy v3)',
          "Recorded for the operator, who decides with the spam lists; no verdict changes (docs/spam.md). Answers Alchemy's confirmation string.",
        ),
        params: V3Params,
        querystring: ReportSpamQuery,
        response: { 200: Type.String(), ...v3Errors },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const query = request.query as Record<string, string | undefined>;
      const network = evmNetwork(deps.chains, request);
      if (query.address !== undefined && query.contractAddress !== undefined && query.address !== query.contractAddress) {
        throw invalidRequest('contractAddress', 'names another contract than address: give one of them');
      }
      const contract = requiredAddress('address', query.address ?? query.contractAddress).toLowerCase();
      const isSpam = parseIsSpam(query.isSpam);
      await deps.reports.record(networkId(network), contract, request.principal!.accountId, isSpam);
      const confirmation = `Address was successfully reported as ${isSpam ? 'spam' : 'not spam'}`;
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(confirmation));
    },
  );
}

function parseIsSpam(value: string | undefined): boolean {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw invalidRequest('isSpam', `'${value}' is not true or false`);
}
