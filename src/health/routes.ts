import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Metrics } from '../observability/metrics.ts';
import type { HealthCheck } from './health-check.ts';

const HealthReport = Type.Object({
  status: Type.Unsafe<'ok' | 'unavailable'>({ type: 'string', enum: ['ok', 'unavailable'] }),
  checks: Type.Record(Type.String(), Type.String()),
});

/** `GET /healthz` (200 when ready, 503 otherwise) and `GET /metrics` (Prometheus text). Not authenticated. */
export async function operationsRoutes(app: FastifyInstance, deps: { health: HealthCheck; metrics: Metrics }) {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Readiness: database migrated and reachable, every chain upstream answering',
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
      schema: {
        summary: 'Prometheus metrics',
        tags: ['operations'],
        response: { 200: Type.String({ description: 'Prometheus text exposition format' }) },
      },
    },
    async (_request, reply) => {
      const text = await deps.metrics.registry.metrics();
      return reply.type(deps.metrics.registry.contentType).send(text);
    },
  );
}
