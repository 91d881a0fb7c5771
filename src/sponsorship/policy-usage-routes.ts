import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { notFound } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { PolicyIdParams } from './policy-schemas.ts';
import { getPolicy } from './policy-store.ts';
import { policyUsage } from './sponsorship-store.ts';

const tags = ['gas'];

const UsageRow = Type.Object({ ops: Type.Integer(), usd: Type.String() });
const PolicyUsage = Type.Object({
  policy_id: Type.String(),
  ops: Type.Integer(),
  sponsored_usd: Type.String({ description: 'Settled ops at their actual cost plus open reservations at their maximum' }),
  settled_usd: Type.String(),
  reserved_usd: Type.String(),
  by_sender: Type.Array(Type.Intersect([Type.Object({ sender: Type.String() }), UsageRow])),
  by_day: Type.Array(Type.Intersect([Type.Object({ day: Type.String() }), UsageRow])),
});

/** `GET /v1/gas/policies/{id}/usage` (scope gas:manage): also reachable on a dashboard session. */
export async function policyUsageRoutes(app: FastifyInstance, deps: { db: Database }) {
  app.get(
    '/v1/gas/policies/:id/usage',
    {
      config: { computeUnits: restComputeUnits['gas.policies.usage'], methodName: 'gas.policies.usage', scope: 'gas:manage' },
      schema: {
        summary: 'What a gas policy sponsored: ops and USD, per sender and per UTC day',
        tags,
        params: PolicyIdParams,
        response: { 200: PolicyUsage, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { id } = request.params as Static<typeof PolicyIdParams>;
      const policy = await getPolicy(deps.db, principal.accountId, id);
      if (!policy) throw notFound(`gas policy '${id}' does not exist`);
      const usage = await policyUsage(deps.db, policy.id);
      return {
        policy_id: policy.id,
        ops: usage.ops,
        sponsored_usd: usage.sponsoredUsd,
        settled_usd: usage.settledUsd,
        reserved_usd: usage.reservedUsd,
        by_sender: usage.bySender,
        by_day: usage.byDay,
      };
    },
  );
}
