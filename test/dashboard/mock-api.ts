// A stand-in for /dashboard/api inside the browser (Playwright's request routing), answering with the
// shapes of docs/dashboard-api.md and the /v1 schemas: the pages render and behave without the session
// back end. The page, its headers and its assets still come from the real service.
import type { Page, Route } from 'playwright-core';

// Relative to the run's own clock, so the pages' ranges (the last 24 h, 30 days) hold the data.
const now = Date.now();
const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

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

const allScopes = ['rpc:read', 'rpc:write', 'data:read', 'wallets:manage', 'webhooks:manage', 'gas:manage', 'bundler:send'];

function keys() {
  return [
    {
      id: 'key_1',
      account_id: 'acc_1',
      name: 'backend (production)',
      prefix: 'svc_live_7Hq2',
      environment: 'live',
      scopes: allScopes,
      created_at: iso(40 * day),
      revoked_at: null,
      last_used_at: iso(3 * minute),
    },
    {
      id: 'key_2',
      account_id: 'acc_1',
      name: 'indexer worker',
      prefix: 'svc_test_Kx9a',
      environment: 'test',
      scopes: ['rpc:read', 'data:read'],
      created_at: iso(12 * day),
      revoked_at: null,
      last_used_at: iso(2 * hour),
    },
    {
      id: 'key_3',
      account_id: 'acc_1',
      name: 'old laptop',
      prefix: 'svc_test_Pq1Z',
      environment: 'test',
      scopes: ['rpc:read'],
      created_at: iso(90 * day),
      revoked_at: iso(30 * day),
      last_used_at: null,
    },
  ];
}

/** A day of hourly points with a daily shape, per key and per method. */
function usage(query: URLSearchParams) {
  const groupBy = query.get('group_by') ?? 'key';
  const to = Date.parse(query.get('to') ?? iso(0));
  const from = Date.parse(query.get('from') ?? iso(day));
  const step = query.get('granularity') === 'minute' ? minute : query.get('granularity') === 'day' ? day : hour;
  const groups =
    groupBy === 'key'
      ? [
          ['key_1', 1],
          ['key_2', 0.35],
        ]
      : [
          ['eth_blockNumber', 0.5],
          ['eth_call', 0.3],
          ['eth_getLogs', 0.12],
          ['GET /v1/tokens/:chain/balances/:address', 0.08],
        ];
  const series = groups.map(([group]) => ({
    group,
    points: [] as { t: string; requests: number; compute_units: number; rate_limited: number }[],
  }));
  for (let t = Math.ceil(from / step) * step, index = 0; t < to; t += step, index++) {
    const wave = 1200 + Math.round(900 * Math.sin(index / 3.5) + 300 * Math.cos(index / 1.7));
    for (const [position, [, share]] of groups.entries()) {
      const requests = Math.round(Math.max(0, wave) * (share as number));
      series[position]?.points.push({
        t: new Date(t).toISOString(),
        requests,
        compute_units: requests * (position === 0 ? 14 : 9),
        rate_limited: index % 7 === 3 ? Math.round(requests * 0.04) : 0,
      });
    }
  }
  const totals = { requests: 0, compute_units: 0, rate_limited: 0 };
  for (const entry of series)
    for (const point of entry.points) {
      totals.requests += point.requests;
      totals.compute_units += point.compute_units;
      totals.rate_limited += point.rate_limited;
    }
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    granularity: query.get('granularity') ?? 'hour',
    group_by: groupBy,
    series,
    totals,
    limits: { rps: 100, rpd: 5_000_000, cups: 2000 },
  };
}

const webhook = {
  id: 'wh_3kd9',
  url: 'https://hooks.acme.dev/blockyard',
  chain: 'ethereum',
  network: 'devnet',
  event_type: 'token_transfer',
  config: { addresses: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'], confirmations: 2 },
  payload_format: 'snake_case',
  status: 'active',
  status_reason: null,
  created_at: iso(5 * day),
  updated_at: iso(5 * day),
};

function deliveries() {
  const body = JSON.stringify({
    id: 'evt_1',
    event_type: 'token_transfer',
    webhook_id: 'wh_3kd9',
    test: false,
    data: { value: '1000' },
  });
  const attempt = (n: number, status: number | null, ms: number) => ({
    attempt: n,
    attempted_at: iso(ms),
    request: {
      url: webhook.url,
      headers: { 'content-type': 'application/json', 'x-webhook-event': 'token_transfer', 'x-service-timestamp': '1772452800' },
      body,
    },
    response: { status, body: status === 200 ? '{"ok":true}' : status === null ? null : 'Internal Server Error' },
    latency_ms: status === null ? 15000 : 84,
    error: status === null ? 'timed out after 15 s' : null,
  });
  return [
    {
      id: 'dlv_3',
      event_id: 'evt_3',
      event_type: 'token_transfer',
      kind: 'event',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      note: null,
      block_number: 1842,
      removed: false,
      test: false,
      created_at: iso(4 * minute),
      updated_at: iso(4 * minute),
      attempts: [attempt(1, 200, 4 * minute)],
    },
    {
      id: 'dlv_2',
      event_id: 'evt_2',
      event_type: 'token_transfer',
      kind: 'event',
      status: 'pending',
      attempt_count: 2,
      next_attempt_at: iso(-5 * minute),
      note: null,
      block_number: 1839,
      removed: false,
      test: false,
      created_at: iso(20 * minute),
      updated_at: iso(10 * minute),
      attempts: [attempt(1, 500, 20 * minute), attempt(2, null, 10 * minute)],
    },
    {
      id: 'dlv_1',
      event_id: 'evt_1',
      event_type: 'token_transfer',
      kind: 'test',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      note: null,
      block_number: null,
      removed: false,
      test: true,
      created_at: iso(2 * day),
      updated_at: iso(2 * day),
      attempts: [attempt(1, 200, 2 * day)],
    },
  ];
}

const wallet = {
  address: '0x6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c',
  owner: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  chain: 'ethereum',
  network: 'devnet',
  status: 'deployed',
  factory: '0x91e60e0613810449d098b0b5ec8b51a0fe8c8985',
  entry_point: '0x0000000071727de22e5e9d8baf0edac6f37da032',
  entry_point_version: '0.7',
  salt: '0',
  created_at: iso(3 * day),
};

const policy = {
  id: 'gp_71x',
  name: 'Onboarding: first mint free',
  chain: 'ethereum',
  network: 'devnet',
  rules: {
    max_gas_usd: '250',
    max_gas_usd_per_op: '0.5',
    max_per_user_per_day: 3,
    allowed_contracts: ['0x5fbdb2315678afecb367f032d93f642f64180aa3'],
    allowed_methods: ['mint(address,uint256)'],
    rate_limit: { ops: 10, per_seconds: 60 },
    sponsorship_expiry_s: 600,
  },
  status: 'active',
  created_at: iso(9 * day),
  updated_at: iso(9 * day),
};

const upstreamDefaults = {
  condition: 'ok',
  reason: null,
  since: iso(day),
  tier: 'primary',
  lag: 0,
  budget: { rps: null, cu_per_s: null, tuned_rps: null },
  logs_range_cap: null,
};

const chains = {
  networks: [
    {
      chain: 'ethereum',
      network: 'devnet',
      chain_id: 31337,
      testnet: true,
      kind: 'evm',
      upstreams: [
        {
          ...upstreamDefaults,
          url_host: '127.0.0.1:8545',
          name: '127.0.0.1:8545',
          healthy: true,
          latency_ms: 3,
          state: 'closed',
          head: 1843,
        },
      ],
      indexer: { head: 1843, indexed: 1841, behind: 2, running: true },
      bundler: true,
    },
    {
      chain: 'ethereum',
      network: 'mainnet',
      chain_id: 1,
      testnet: false,
      kind: 'evm',
      upstreams: [
        {
          ...upstreamDefaults,
          url_host: 'eth-mainnet.provider-a.example',
          name: 'alchemy',
          healthy: true,
          latency_ms: 41,
          state: 'closed',
          head: 21_400_120,
        },
        {
          ...upstreamDefaults,
          url_host: 'rpc.provider-b.example',
          name: 'infura',
          healthy: false,
          latency_ms: null,
          state: 'open',
          condition: 'unreachable',
          reason: 'timeout',
          tier: 'fallback',
          head: 21_400_117,
          lag: 3,
        },
      ],
      indexer: null,
      bundler: false,
    },
  ],
};

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
  const json = (route: Route, status: number, body?: unknown) =>
    route.fulfill({ status, contentType: 'application/json', body: body === undefined ? '' : JSON.stringify(body) });
  const error = (route: Route, status: number, code: string, message: string) =>
    json(route, status, { error: { code, message, status } });

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
    switch (true) {
      case key === 'GET /session':
        return json(route, 200, session);
      case key === 'DELETE /session':
        signedIn = false;
        return json(route, 204);
      case key === 'GET /keys':
        return json(route, 200, { keys: keys() });
      case key === 'POST /keys':
        return json(route, 201, {
          ...keys()[0],
          id: 'key_9',
          name: body.name,
          environment: body.environment,
          scopes: body.scopes,
          prefix: 'svc_test_N3w1',
          created_at: iso(0),
          key: 'svc_test_N3w1xR8qY6mVb2Lk9Tz4Wc7Hd5Jf3Gs1Pa8Eu',
        });
      case method === 'DELETE' && path.startsWith('/keys/'):
        return json(route, 200, { ...keys()[1], revoked_at: iso(0) });
      case key === 'GET /v1/usage':
        return json(route, 200, usage(url.searchParams));
      case key === 'GET /chains':
        return json(route, 200, chains);
      case key === 'GET /v1/webhooks': {
        // List items carry the spec's six fields only.
        const listed = [
          webhook,
          { ...webhook, id: 'wh_8a2', url: 'https://api.example.org/mint-hook', event_type: 'nft_transfer', status: 'paused' },
          { ...webhook, id: 'wh_1zz', url: 'https://old.example.net/hook', event_type: 'new_block', status: 'disabled' },
        ].map(({ id, url, chain, event_type, status, created_at }) => ({ id, url, chain, event_type, status, created_at }));
        return json(route, 200, { webhooks: listed, page: 1, total: 3 });
      }
      case key === 'POST /v1/webhooks':
        return json(route, 201, {
          ...webhook,
          ...body,
          id: 'wh_new1',
          signing_secret: 'whsec_dGVzdHNlY3JldGZvcnRoZWRhc2hib2FyZA==',
        });
      case key === 'GET /v1/webhooks/wh_3kd9' || key === 'GET /v1/webhooks/wh_new1':
        return json(route, 200, { ...webhook, id: path.split('/').pop() });
      case method === 'GET' && path.startsWith('/v1/webhooks/') && path.endsWith('/deliveries'):
        return json(route, 200, { deliveries: deliveries(), page: 1, total: 3 });
      case method === 'GET' && path.startsWith('/v1/webhooks/'):
        return error(route, 404, 'not_found', `no webhook ${path.split('/').pop()}`);
      case method === 'PATCH' && path.startsWith('/v1/webhooks/'):
        return json(route, 200, { ...webhook, ...body });
      case method === 'POST' && path.endsWith('/test'):
        return json(route, 202, { event_id: 'evt_t1', delivery_id: 'dlv_t1' });
      case method === 'POST' && path.endsWith('/rotate-secret'):
        return json(route, 200, {
          ...webhook,
          signing_secret: 'whsec_cm90YXRlZHNlY3JldA==',
          previous_secret_expires_at: iso(-day),
        });
      case key === 'GET /v1/wallets':
        return json(route, 200, {
          wallets: [
            wallet,
            { ...wallet, address: '0x1b2c3d4e5f60718293a4b5c6d7e8f9011a2b3c4d', status: 'counterfactual', salt: '1' },
          ],
          page: 1,
          total: 2,
        });
      case method === 'GET' && path.startsWith('/v1/wallets/'):
        return path.endsWith(wallet.address)
          ? json(route, 200, { ...wallet, nonce: 4, deployed_at: iso(3 * day), deploy_tx: `0x${'ab12'.repeat(16)}` })
          : error(route, 404, 'not_found', `no wallet ${path.split('/').pop()} of this account`);
      case key === 'GET /v1/gas/policies':
        return json(route, 200, {
          policies: [policy, { ...policy, id: 'gp_2', name: 'Game: session keys', status: 'paused', rules: { max_ops: 5000 } }],
          page: 1,
          total: 2,
        });
      case key === 'POST /v1/gas/policies':
        return json(route, 201, { ...policy, ...body, id: 'gp_new' });
      case method === 'GET' && path.endsWith('/usage') && path.startsWith('/v1/gas/policies/'):
        return json(route, 200, {
          policy_id: policy.id,
          ops: 143,
          sponsored_usd: '61.42',
          settled_usd: '60.90',
          reserved_usd: '0.52',
          by_sender: [
            { sender: '0x6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c', ops: 61, usd: '26.01' },
            { sender: '0x1b2c3d4e5f60718293a4b5c6d7e8f9011a2b3c4d', ops: 44, usd: '19.30' },
          ],
          by_day: Array.from({ length: 12 }, (_, index) => ({
            day: iso((11 - index) * day).slice(0, 10),
            ops: [4, 9, 7, 15, 12, 18, 11, 14, 9, 21, 13, 10][index] as number,
            usd: '4.20',
          })),
        });
      case key === `GET /v1/gas/policies/${policy.id}`:
        return json(route, 200, policy);
      case method === 'GET' && path.startsWith('/v1/gas/policies/'):
        return error(route, 404, 'not_found', `no gas policy ${path.split('/').pop()}`);
      case method === 'PATCH' && path.startsWith('/v1/gas/policies/'):
        return json(route, 200, { ...policy, ...body });
      case key === 'GET /members':
        return json(route, 200, {
          members: [
            { user_id: 'usr_1', email: 'ada@example.com', role: 'owner', joined_at: iso(60 * day) },
            { user_id: 'usr_2', email: 'grace@example.com', role: 'member', joined_at: iso(20 * day) },
          ],
        });
      case key === 'GET /invitations':
        return json(route, 200, {
          invitations: [
            { id: 'inv_1', email: 'linus@example.com', role: 'member', created_at: iso(day), expires_at: iso(-6 * day) },
          ],
        });
      case key === 'POST /invitations':
        return json(route, 201, {
          id: 'inv_2',
          email: body.email,
          role: body.role,
          link: 'http://127.0.0.1:8080/invite?token=inv_tok_5r8YcQe2Lm',
          expires_at: iso(-7 * day),
        });
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
        return error(route, 404, 'not_found', `no route ${method} /dashboard/api${path}`);
    }
  });

  return {
    requests,
    failNext(method, path, status, code, message) {
      failures.set(`${method} ${path}`, { status, code, message });
    },
  };
}
