import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { invalidRequest } from '../core/errors.ts';
import { listBodyLimit, webhookBodyLimit } from '../http/body-limits.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { parseAddressChange, parseAddressCursor, parseAddressReplacement } from './address-change.ts';
import { AlchemyAddressesQuery, AlchemyReplaceAddressesBody, AlchemyUpdateAddressesBody } from './schemas.ts';
import type { WebhookService } from './service.ts';

const tags = ['webhooks'];
const principalOf = (request: FastifyRequest) => request.principal!;
const cu = (id: string) => ({ computeUnits: restComputeUnits[id], methodName: id, scope: 'webhooks:manage' as const });

/**
 * Alchemy Notify's address-list calls at their own paths (`{base}/api/…` where Alchemy has
 * `https://dashboard.alchemy.com/api/…`), in its shapes, on the same webhooks and limits as
 * `/v1/webhooks/{id}/addresses`. Registered in the /v1 scope: the same key guard (X-API-Key,
 * Authorization: Bearer, or Alchemy's X-Alchemy-Token), scope `webhooks:manage` and compute units.
 */
export async function alchemyNotifyRoutes(app: FastifyInstance, deps: { webhooks: WebhookService }) {
  const { webhooks } = deps;

  app.patch(
    '/api/update-webhook-addresses',
    {
      config: cu('webhooks.addresses.update'),
      bodyLimit: listBodyLimit,
      schema: {
        summary: "Alchemy Notify's update-webhook-addresses: add and remove watched addresses (at most 1,000 each)",
        tags,
        body: AlchemyUpdateAddressesBody,
        response: {
          200: Type.Object({ webhook_id: Type.String(), address_count: Type.Integer() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof AlchemyUpdateAddressesBody>;
      const change = parseAddressChange(body, { add: 'addresses_to_add', remove: 'addresses_to_remove' });
      const updated = await webhooks.updateAddresses(principalOf(request), body.webhook_id, change);
      return { webhook_id: updated.id, address_count: updated.address_count };
    },
  );

  app.put(
    '/api/update-webhook-addresses',
    {
      config: cu('webhooks.addresses.replace'),
      bodyLimit: webhookBodyLimit,
      schema: {
        summary: "Alchemy Notify's replace-webhook-addresses: the whole new list (at most 100,000; empty watches none)",
        tags,
        body: AlchemyReplaceAddressesBody,
        response: {
          200: Type.Object({ webhook_id: Type.String(), address_count: Type.Integer() }),
          ...errorResponses(400, 401, 403, 404, 413, 429),
        },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof AlchemyReplaceAddressesBody>;
      const addresses = parseAddressReplacement(body.addresses, 'addresses');
      const updated = await webhooks.setAddresses(principalOf(request), body.webhook_id, addresses);
      return { webhook_id: updated.id, address_count: updated.address_count };
    },
  );

  app.get(
    '/api/webhook-addresses',
    {
      config: cu('webhooks.addresses.list'),
      schema: {
        summary: "Alchemy Notify's webhook-addresses: a page of watched addresses (after: pagination.cursors.after)",
        tags,
        querystring: AlchemyAddressesQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Type.String()),
            pagination: Type.Object({
              cursors: Type.Object({ after: Type.Union([Type.String(), Type.Null()]) }),
              total_count: Type.Integer(),
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof AlchemyAddressesQuery>;
      const after = parseAddressCursor(query.after, 'after');
      if (query.webhook_id === undefined) throw invalidRequest('webhook_id', 'is required');
      const page = await webhooks.listAddresses(principalOf(request), query.webhook_id, { limit: query.limit, after });
      return { data: page.addresses, pagination: { cursors: { after: page.next }, total_count: page.total } };
    },
  );
}
