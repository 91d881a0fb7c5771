import type { FastifyRequest } from 'fastify';

/**
 * Route `preValidation` for a body whose every field is optional (`POST …/rotate`): a request sent with no
 * body at all is taken as `{}`, so `curl -X POST` works without `-d '{}'`.
 */
export async function missingBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
