import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../http/schemas.ts';
import type { RequestGuard } from '../http/server.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { HealthCheck } from './health-check.ts';

const HealthReport = Type.Object({
  status: Type.Unsafe<'ok' | 'unavailable'>({ type: 'string', enum: ['ok', 'unavailable'] }),
  checks: Type.Record(Type.String(), Type.String()),
});

const LivenessReport = Type.Object({ status: Type.Literal('ok') });

/**
 * `GET /livez` (200 whenever the process serves HTTP; checks no dependency), `GET /healthz` (200 when ready, 503 otherwise; never authenticated) and `GET /metrics` (Prometheus
 * text; behind `metricsGuard`, the admin token, when `metrics_require_admin_token` is on).
 */
export async function operationsRoutes(
  app: FastifyInstance,
  deps: { health: HealthCheck; metrics: Metrics; metricsGuard?: RequestGuard },
) {
  // A load balancer checks this one: with /healthz it would drop every API node while the database is
  // down and answer with its own page, where each node answers the spec's 503 with Retry-After itself.
  app.get(
    '/livez',
    {
      schema: {
        summary: 'Liveness: the process serves HTTP (no dependency is checked; never authenticated)',
        tags: ['operations'],
        response: { 200: LivenessReport },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/healthz',
    {
      schema: {
        summary:
          'Readiness: the database answers, Redis answers PING (when configured), and each network of readiness.networks (default all) has an upstream verified as its chain and serving; every network is reported',
        tags: ['operations'],
        response: { 200: HealthReport, 503: HealthReport },
      },
    },
    async (_request, reply) => {
      const report = await deps.health.check();
      return reply.code(report.status === 'ok' ? 200 : 503).send(report);
    },
  );

  app.get(
    '/metrics',
    {
      ...(deps.metricsGuard ? { onRequest: deps.metricsGuard } : {}),
      schema: {
        summary: 'Prometheus metrics',
        tags: ['operations'],
        ...(deps.metricsGuard ? { security: [{ adminToken: [] }] } : {}),
        response: {
          200: Type.String({ description: 'Prometheus text exposition format' }),
          ...(deps.metricsGuard ? errorResponses(401) : {}),
        },
      },
    },
    async (_request, reply) => {
      const text = await deps.metrics.registry.metrics();
      return reply.type(deps.metrics.registry.contentType).send(text);
    },
  );
}
