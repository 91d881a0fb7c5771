// The mock dashboard API's keys and usage (mock-api.ts): the account's API keys, and a day of usage per key
// or per method.
import { type AreaRoutes, day, hour, iso, json, minute } from './mock-api-support.ts';

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

/** GET, create and revoke keys; GET /v1/usage. */
export const keyRoutes: AreaRoutes = ({ route, key, method, path, body, query }) => {
  switch (true) {
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
      return json(route, 200, usage(query));
    default:
      return undefined;
  }
};
