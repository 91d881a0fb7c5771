import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { invalidRequest } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { listBodyLimit, webhookBodyLimit } from '../http/body-limits.ts';
import { pageWindow } from '../http/pagination.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { parseAddressChange, parseAddressCursor } from './address-change.ts';
import { readDeliveryLog } from './delivery-log.ts';
import type { ReplayRequest } from './replay.ts';
import {
  AddressCount,
  AddressesQuery,
  AddressPage,
  CreateWebhookBody,
  DeliveriesQuery,
  Delivery,
  DeliveryParams,
  ListWebhooksQuery,
  ReplayBody,
  UpdateAddressesBody,
  UpdateWebhookBody,
  Webhook,
  WebhookIdParams,
  WebhookListItem,
} from './schemas.ts';
import type { WebhookService } from './service.ts';

const tags = ['webhooks'];

const principalOf = (request: FastifyRequest) => request.principal!;
const cu = (id: string) => ({ computeUnits: restComputeUnits[id], methodName: id, scope: 'webhooks:manage' as const });

/** `/v1/webhooks` (scope webhooks:manage; a webhook belongs to the account of the key that made it). */
export async function webhookRoutes(app: FastifyInstance, deps: { webhooks: WebhookService; db: Database }) {
  // In this order: the OpenAPI document lists the paths as they were declared.
  webhookCrudRoutes(app, deps.webhooks);
  webhookAddressRoutes(app, deps.webhooks);
  webhookDeliveryRoutes(app, deps);
  webhookSecretRoutes(app, deps.webhooks);
}

/** Create, list, get, update and delete. */
function webhookCrudRoutes(app: FastifyInstance, webhooks: WebhookService) {
  app.post(
    '/v1/webhooks',
    {
      config: { ...cu('webhooks.create'), idempotent: true },
      bodyLimit: webhookBodyLimit,
      schema: {
        summary: 'Create a webhook (the signing secret is shown only here)',
        tags,
        body: CreateWebhookBody,
        response: { 201: Webhook, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.create(principalOf(request), request.body as Static<typeof CreateWebhookBody>)),
  );

  app.get(
    '/v1/webhooks',
    {
      config: cu('webhooks.list'),
      schema: {
        summary: "List the account's webhooks",
        tags,
        querystring: ListWebhooksQuery,
        response: {
          200: Type.Object({ webhooks: Type.Array(WebhookListItem), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof ListWebhooksQuery>;
      const { webhooks: list, total } = await webhooks.list(principalOf(request), { status: query.status, ...pageWindow(query) });
      return { webhooks: list, page: query.page, total };
    },
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: cu('webhooks.get'),
      schema: {
        summary: 'Get a webhook',
        tags,
        params: WebhookIdParams,
        response: { 200: Webhook, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.get(principalOf(request), (request.params as { id: string }).id),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      config: cu('webhooks.update'),
      bodyLimit: webhookBodyLimit,
      schema: {
        summary: 'Update url, config, or status (active or paused); resuming delivers the backlog in order',
        tags,
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) =>
      webhooks.update(
        principalOf(request),
        (request.params as { id: string }).id,
        request.body as Static<typeof UpdateWebhookBody>,
      ),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: cu('webhooks.delete'),
      schema: {
        summary: 'Delete a webhook, its events and its delivery log (permanent)',
        tags,
        params: WebhookIdParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.remove(principalOf(request), (request.params as { id: string }).id),
  );
}

/** The watched addresses, up to 100,000: changed up to 1,000 at a time and read page by page. */
function webhookAddressRoutes(app: FastifyInstance, webhooks: WebhookService) {
  app.patch(
    '/v1/webhooks/:id/addresses',
    {
      config: cu('webhooks.addresses.update'),
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'Add and remove watched addresses (at most 1,000 each a call; repeats are fine); answers the new count',
        tags,
        params: WebhookIdParams,
        body: UpdateAddressesBody,
        response: { 200: AddressCount, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const change = parseAddressChange(request.body as Record<string, unknown>, { add: 'add', remove: 'remove' });
      return webhooks.updateAddresses(principalOf(request), (request.params as { id: string }).id, change);
    },
  );

  app.get(
    '/v1/webhooks/:id/addresses',
    {
      config: cu('webhooks.addresses.list'),
      schema: {
        summary: 'The watched addresses, a page at a time in address order (cursor: next_cursor of the previous page)',
        tags,
        params: WebhookIdParams,
        querystring: AddressesQuery,
        response: { 200: AddressPage, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof AddressesQuery>;
      const after = parseAddressCursor(query.cursor, 'cursor');
      const page = await webhooks.listAddresses(principalOf(request), (request.params as { id: string }).id, {
        limit: query.limit,
        after,
      });
      return { addresses: page.addresses, total: page.total, next_cursor: page.next };
    },
  );
}

/** The delivery log, a test delivery, and sending events again: one delivery, or every match of a range. */
function webhookDeliveryRoutes(app: FastifyInstance, deps: { webhooks: WebhookService; db: Database }) {
  const { webhooks } = deps;

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: cu('webhooks.deliveries'),
      schema: {
        summary: 'The delivery log: every delivery, newest first, with each attempt’s request, response, latency and error',
        tags,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Object({ deliveries: Type.Array(Delivery), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const query = request.query as Static<typeof DeliveriesQuery>;
      const webhook = await webhooks.get(principalOf(request), id);
      const { deliveries, total } = await readDeliveryLog(deps.db, webhook, { status: query.status, ...pageWindow(query) });
      return { deliveries, page: query.page, total };
    },
  );

  app.post(
    '/v1/webhooks/:id/test',
    {
      config: cu('webhooks.test'),
      schema: {
        summary: 'Send a test event shaped like a real one of the webhook’s type, marked test: true (tried once)',
        tags,
        params: WebhookIdParams,
        response: {
          202: Type.Object({ event_id: Type.String(), delivery_id: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.sendTest(principalOf(request), (request.params as { id: string }).id)),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      config: cu('webhooks.redeliver'),
      schema: {
        summary: 'Send a delivery’s event again (same event id)',
        tags,
        params: DeliveryParams,
        response: {
          202: Type.Object({ delivery_id: Type.String(), event_id: Type.String() }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { id, delivery_id } = request.params as Static<typeof DeliveryParams>;
      return reply.code(202).send(await webhooks.redeliver(principalOf(request), id, delivery_id));
    },
  );

  app.post(
    '/v1/webhooks/:id/replay',
    {
      config: cu('webhooks.replay'),
      schema: {
        summary:
          'Deliver again every matching event of a block range ({from_block, to_block}) or since a time ({since}), with the same event ids',
        tags,
        params: WebhookIdParams,
        body: ReplayBody,
        response: {
          202: Type.Object({
            id: Type.String(),
            from_block: Type.Integer(),
            to_block: Type.Integer(),
            queued: Type.Integer(),
            complete: Type.Boolean({ description: 'false: the replay cap was reached; replay again from next_from_block' }),
            next_from_block: Type.Union([Type.Integer(), Type.Null()], {
              description: 'The first block not queued (null when complete): send it as from_block, with the same to_block',
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const replay = replayRequestOf(request.body as Static<typeof ReplayBody>);
      return reply.code(202).send(await webhooks.replay(principalOf(request), (request.params as { id: string }).id, replay));
    },
  );
}

/** A new signing secret beside the previous one. */
function webhookSecretRoutes(app: FastifyInstance, webhooks: WebhookService) {
  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: cu('webhooks.rotate_secret'),
      schema: {
        summary: 'A new signing secret; the previous one keeps signing beside it for 24 h',
        tags,
        params: WebhookIdParams,
        response: { 200: Webhook, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.rotateSecret(principalOf(request), (request.params as { id: string }).id),
  );
}

/** A replay body as a range: blocks, or everything since a time (not both). */
function replayRequestOf(body: Static<typeof ReplayBody>): ReplayRequest {
  if (body.since !== undefined) {
    if (body.from_block !== undefined || body.to_block !== undefined)
      throw invalidRequest('since', 'give either since or from_block/to_block');
    return { since: body.since };
  }
  if (body.from_block !== undefined) return { from_block: body.from_block, to_block: body.to_block };
  throw invalidRequest('from_block', 'is required (or give since)');
}
