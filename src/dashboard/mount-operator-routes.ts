import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { forbidden } from '../core/errors.ts';
import type { RequestGuard } from '../http/server.ts';

/** The admin route plugins again, for signed-in operators (session and CSRF instead of the admin token). */
export async function mountOperatorRoutes(app: FastifyInstance, deps: { guard: RequestGuard; routes: FastifyPluginAsync }) {
  app.addHook('onRequest', deps.guard);
  app.addHook('onRequest', async (request) => {
    if (!request.dashboard!.user.operator) throw forbidden('only an operator of this Blockyard can use the admin view');
  });
  await deps.routes(app, {});
}
