// The mock dashboard API's operator pages (mock-api.ts): every account and every webhook.
import { type AreaRoutes, day, iso, json } from './mock-api-support.ts';
import { webhook } from './mock-api-webhooks.ts';

/** GET /admin/accounts and /admin/webhooks. */
export const adminRoutes: AreaRoutes = ({ route, key, session }) => {
  switch (true) {
    case key === 'GET /admin/accounts':
      return json(route, 200, {
        accounts: [
          {
            id: 'acc_1',
            name: 'Acme Labs',
            plan: 'growth',
            limits: session.account.limits,
            email: 'ops@acme.dev',
            created_at: iso(60 * day),
          },
          {
            id: 'acc_dev',
            name: 'dev',
            plan: 'enterprise',
            limits: { rps: null, rpd: null, cups: null, webhook_deliveries_per_day: null },
            email: null,
            created_at: iso(90 * day),
          },
        ],
        page: 1,
        total: 2,
      });
    case key === 'GET /admin/webhooks':
      return json(route, 200, { webhooks: [{ ...webhook, account_id: 'acc_1' }], page: 1, total: 1 });
    default:
      return undefined;
  }
};
