import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { notFound } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { pageWindow } from '../http/pagination.ts';
import { errorResponses, StringEnum } from '../http/schemas.ts';
import { AdminWebhookBody, Webhook, WebhookIdParams } from './schemas.ts';
import { view } from './webhook-view.ts';

const adminSecurity = [{ adminToken: [] }];
const tags = ['admin'];

/** Operators: list any account's webhooks, and disable (or enable) one. Registered inside the admin guard's scope. */
export async function webhookAdminRoutes(app: FastifyInstance, deps: { db: Database; queued: () => void }) {
  const { db } = deps;

  app.get(
    '/admin/webhooks',
    {
      schema: {
        summary: 'List webhooks of every account (or of one)',
        tags,
        security: adminSecurity,
        querystring: Type.Object(
          {
            page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
            account_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            status: Type.Optional(StringEnum(['active', 'paused', 'disabled'] as const)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            webhooks: Type.Array(Type.Intersect([Webhook, Type.Object({ account_id: Type.String() })])),
            page: Type.Integer(),
            total: Type.Integer(),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const query = request.query as {
        page: number;
        limit: number;
        account_id?: string;
        status?: 'active' | 'paused' | 'disabled';
      };
      let base = db.selectFrom('webhooks').where('deleted_at', 'is', null);
      if (query.account_id) base = base.where('account_id', '=', query.account_id);
      if (query.status) base = base.where('status', '=', query.status);
      const { offset, limit } = pageWindow(query);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('created_at', 'desc').orderBy('id').offset(offset).limit(limit).execute(),
        base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return {
        webhooks: rows.map((row) => ({ ...view(row), account_id: row.account_id })),
        page: query.page,
        total: Number(count.total),
      };
    },
  );

  app.patch(
    '/admin/webhooks/:id',
    {
      schema: {
        summary: 'Set a webhook’s status: disabled (only an operator can enable it again), active or paused',
        tags,
        security: adminSecurity,
        params: WebhookIdParams,
        body: AdminWebhookBody,
        response: { 200: Webhook, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const body = request.body as Static<typeof AdminWebhookBody>;
      const row = await db
        .updateTable('webhooks')
        .set({
          status: body.status,
          disabled_by: body.status === 'disabled' ? 'operator' : null,
          status_reason: body.reason ?? (body.status === 'disabled' ? 'disabled by an operator' : null),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound(`webhook '${id}' does not exist`);
      if (row.status === 'active') deps.queued();
      return view(row);
    },
  );
}
