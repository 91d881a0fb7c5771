// A stand-in for /dashboard/api inside the browser (Playwright's request routing), answering with the
// shapes of docs/dashboard-api.md and the /v1 schemas: the pages render and behave without the session
// back end. The page, its headers and its assets still come from the real service.
import type { Page } from 'playwright-core';
import { adminRoutes } from './mock-api-admin.ts';
import { chainRoutes } from './mock-api-chains.ts';
import { gasPolicyRoutes } from './mock-api-gas.ts';
import { keyRoutes } from './mock-api-keys.ts';
import { type AreaRoutes, error, json } from './mock-api-support.ts';
import { teamRoutes } from './mock-api-team.ts';
import { walletRoutes } from './mock-api-wallets.ts';
import { webhookRoutes } from './mock-api-webhooks.ts';

export const csrfToken = 'csrf-test-token';

export function sessionFixture(overrides: { operator?: boolean; role?: 'owner' | 'member' } = {}) {
  return {
    user: { id: 'usr_1', email: 'ada@example.com', operator: overrides.operator ?? true },
    account: {
      id: 'acc_1',
      name: 'Acme Labs',
      plan: 'growth',
      role: overrides.role ?? 'owner',
      limits: { rps: 100, rpd: 5_000_000, cups: 2000, webhook_deliveries_per_day: null },
    },
    accounts: [
      { id: 'acc_1', name: 'Acme Labs', role: overrides.role ?? 'owner' },
      { id: 'acc_2', name: 'Side project', role: 'member' },
    ],
    csrf_token: csrfToken,
  };
}

/** The areas' routes, tried in this order: the first that answers wins. */
const areas: AreaRoutes[] = [keyRoutes, chainRoutes, webhookRoutes, walletRoutes, gasPolicyRoutes, teamRoutes, adminRoutes];

export interface MockApi {
  /** Every request the page made: method, path and whether it carried the CSRF token. */
  requests: { method: string; path: string; csrf: string | undefined; body: unknown }[];
  /** Answers of the next request to `METHOD /path` (path below /dashboard/api), once. */
  failNext(method: string, path: string, status: number, code: string, message: string): void;
}

/** Routes /dashboard/api/** of `page` to the fixtures; `signedIn: false` answers the session with 401. */
export async function mockDashboardApi(page: Page, options: { signedIn?: boolean; operator?: boolean } = {}): Promise<MockApi> {
  let signedIn = options.signedIn ?? true;
  const session = sessionFixture({ operator: options.operator });
  const requests: MockApi['requests'] = [];
  const failures = new Map<string, { status: number; code: string; message: string }>();

  await page.route('**/dashboard/api/**', async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    const path = url.pathname.replace(/^\/dashboard\/api/, '');
    const method = request.method();
    const body = request.postData() ? JSON.parse(request.postData() as string) : undefined;
    requests.push({ method, path, csrf: request.headers()['x-csrf-token'], body });
    const failure = failures.get(`${method} ${path}`);
    if (failure) {
      failures.delete(`${method} ${path}`);
      return error(route, failure.status, failure.code, failure.message);
    }
    const open = [
      'POST /session',
      'POST /signup',
      'POST /signup/verify',
      'POST /password-reset',
      'POST /password-reset/confirm',
    ].includes(`${method} ${path}`);
    if (method !== 'GET' && !open && request.headers()['x-csrf-token'] !== csrfToken) {
      return error(route, 403, 'forbidden', 'CSRF token missing or wrong');
    }
    // Sign-up mails a link; the link's page confirms it, which signs in.
    if (method === 'POST' && path === '/signup') return json(route, 202, { email: String(body.email).toLowerCase() });
    if (method === 'POST' && (path === '/session' || path === '/signup/verify')) {
      signedIn = true;
      return json(route, 200, session);
    }
    if (!signedIn) return error(route, 401, 'unauthorized', 'sign in first');
    const key = `${method} ${path}`;
    if (key === 'GET /session') return json(route, 200, session);
    if (key === 'DELETE /session') {
      signedIn = false;
      return json(route, 204);
    }
    for (const routes of areas) {
      const answer = routes({ route, method, path, key, query: url.searchParams, body, session });
      if (answer) return answer;
    }
    return error(route, 404, 'not_found', `no route ${method} /dashboard/api${path}`);
  });

  return {
    requests,
    failNext(method, path, status, code, message) {
      failures.set(`${method} ${path}`, { status, code, message });
    },
  };
}
