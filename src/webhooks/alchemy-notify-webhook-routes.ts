import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import { invalidRequest } from '../core/errors.ts';
import { listBodyLimit, webhookBodyLimit } from '../http/body-limits.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { alchemyWebhook, type AlchemyCreateWebhookBody as CreateBody, createWebhookInput } from './alchemy-notify-shapes.ts';
import { type NftFilterPair, parseNftFilterPair } from './nft-filter-pairs.ts';
import {
  AlchemyCreateWebhookBody,
  AlchemyNftFilterPage,
  AlchemyNftFiltersQuery,
  AlchemyUpdateNftFiltersBody,
  AlchemyUpdateWebhookBody,
  AlchemyWebhook,
  AlchemyWebhookIdQuery,
} from './schemas.ts';
import type { WebhookService } from './service.ts';

const tags = ['webhooks'];
const principalOf = (request: FastifyRequest) => request.principal!;
// The method names and prices of the /v1/webhooks routes that do the same: a key's `methods` lists them once.
const cu = (id: string) => ({ computeUnits: restComputeUnits[id], methodName: id, scope: 'webhooks:manage' as const });

/**
 * Alchemy Notify's webhook calls (`{base}/api/…` where Alchemy has `https://dashboard.alchemy.com/api/…`),
 * so alchemy-sdk's `notify` namespace, given `url: '{base}/api'` and the key as `authToken`, lists,
 * creates, turns on and off, and deletes the same webhooks `/v1/webhooks` serves.
 */
export async function alchemyNotifyWebhookRoutes(
  app: FastifyInstance,
  deps: { webhooks: WebhookService; chains: ChainRegistry },
) {
  const { webhooks, chains } = deps;

  app.get(
    '/api/team-webhooks',
    {
      config: cu('webhooks.list'),
      schema: {
        summary: "Alchemy Notify's team-webhooks: every webhook of the key's account, newest first (at most 10,000)",
        tags,
        response: { 200: Type.Object({ data: Type.Array(AlchemyWebhook) }), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ data: (await webhooks.listAll(principalOf(request))).map(alchemyWebhook) }),
  );

  app.post(
    '/api/create-webhook',
    {
      config: { ...cu('webhooks.create'), idempotent: true },
      bodyLimit: webhookBodyLimit,
      schema: {
        summary:
          "Alchemy Notify's create-webhook: ADDRESS_ACTIVITY (address_activity) or NFT_ACTIVITY (nft_transfer), delivered in the camelCase format",
        tags,
        body: AlchemyCreateWebhookBody,
        response: { 200: Type.Object({ data: AlchemyWebhook }), ...errorResponses(400, 401, 403, 404, 413, 429) },
      },
    },
    async (request) => {
      const input = createWebhookInput(request.body as CreateBody, chains.list());
      return { data: alchemyWebhook(await webhooks.create(principalOf(request), input)) };
    },
  );

  app.put(
    '/api/update-webhook',
    {
      config: cu('webhooks.update'),
      schema: {
        summary: "Alchemy Notify's update-webhook: is_active true resumes it (the backlog in order), false pauses it",
        tags,
        body: AlchemyUpdateWebhookBody,
        response: { 200: Type.Object({ data: AlchemyWebhook }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof AlchemyUpdateWebhookBody>;
      const status = body.is_active ? 'active' : 'paused';
      return { data: alchemyWebhook(await webhooks.update(principalOf(request), body.webhook_id, { status })) };
    },
  );

  app.delete(
    '/api/delete-webhook',
    {
      config: cu('webhooks.delete'),
      schema: {
        summary: "Alchemy Notify's delete-webhook: the webhook, its events and its delivery log (permanent)",
        tags,
        querystring: AlchemyWebhookIdQuery,
        response: { 200: Type.Object({}), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      await webhooks.remove(principalOf(request), (request.query as Static<typeof AlchemyWebhookIdQuery>).webhook_id);
      return {};
    },
  );

  app.get(
    '/api/webhook-nft-filters',
    {
      config: cu('webhooks.get'),
      schema: {
        summary: "Alchemy Notify's webhook-nft-filters: an NFT_ACTIVITY webhook's (contract, token id) pairs a page at a time",
        tags,
        querystring: AlchemyNftFiltersQuery,
        response: { 200: AlchemyNftFilterPage, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof AlchemyNftFiltersQuery>;
      if (query.webhook_id === undefined) throw invalidRequest('webhook_id', 'is required');
      const after = query.after === undefined ? 0 : Number(query.after);
      const page = await webhooks.nftFilters(principalOf(request), query.webhook_id, { limit: query.limit, after });
      return { data: page.pairs, pagination: { cursors: { after: page.next }, total_count: page.total } };
    },
  );

  app.patch(
    '/api/update-webhook-nft-filters',
    {
      config: cu('webhooks.update'),
      bodyLimit: listBodyLimit,
      schema: {
        summary:
          "Alchemy Notify's update-webhook-nft-filters: remove, then add (contract, token id) pairs, at most 1,000 each; the result must be contracts, or every listed contract with every listed id",
        tags,
        body: AlchemyUpdateNftFiltersBody,
        response: { 200: Type.Object({}), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof AlchemyUpdateNftFiltersBody>;
      const parse = (pairs: NftFilterPair[] | undefined, field: string) =>
        (pairs ?? []).map((pair, index) => parseNftFilterPair(pair, `${field}[${index}]`));
      await webhooks.changeNftFilters(principalOf(request), body.webhook_id, {
        add: parse(body.nft_filters_to_add, 'nft_filters_to_add'),
        remove: parse(body.nft_filters_to_remove, 'nft_filters_to_remove'),
      });
      return {};
    },
  );
}
