import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { UsageQuerystring, UsageResponse } from './schemas.ts';
import type { UsageStore } from './store.ts';
import { buildSeries, maxPointsPerSeries, parseUsageQuery } from './usage-query.ts';

/**
 * `GET /v1/usage`: the account's requests and compute units over time (any key of the account). Uses
 * only `request.principal.accountId` and `.limits`, so the dashboard mounts it behind its session guard too.
 */
export async function usageRoutes(app: FastifyInstance, deps: { store: UsageStore }) {
  app.get(
    '/v1/usage',
    {
      config: { computeUnits: restComputeUnits['usage.get'], methodName: 'usage.get' },
      schema: {
        summary: "The account's usage: requests, compute units and rate-limited requests per bucket",
        description: `Counted per minute by each API process and written every 5 s, so the newest seconds may be missing. JSON-RPC counts each call of a batch; REST routes are named by their pattern (\`GET /v1/tokens/:chain/balances/:address\`). At most ${maxPointsPerSeries} points per series. See docs/usage.md.`,
        tags: ['usage'],
        querystring: UsageQuerystring,
        response: { 200: UsageResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { accountId, limits, keyLimits } = request.principal!;
      const query = parseUsageQuery(request.query as Static<typeof UsageQuerystring>, Date.now());
      const buckets = await deps.store.buckets(accountId, query.from, query.to, query.granularity, query.groupBy);
      const { series, totals } = buildSeries(buckets, query);
      return {
        from: query.from.toISOString(),
        to: query.to.toISOString(),
        granularity: query.granularity,
        group_by: query.groupBy,
        series,
        totals,
        limits: { rps: limits.rps, rpd: limits.rpd, cups: limits.cups },
        ...(keyLimits ? { key_limits: { rps: keyLimits.rps, rpd: keyLimits.rpd, cups: keyLimits.cups } } : {}),
      };
    },
  );
}
