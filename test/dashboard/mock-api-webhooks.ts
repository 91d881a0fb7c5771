// The mock dashboard API's webhooks (mock-api.ts): one token_transfer webhook, its deliveries, and its
// edits, tests and secret rotation.
import { type AreaRoutes, day, error, iso, json, minute } from './mock-api-support.ts';

export const webhook = {
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

/** /v1/webhooks: list, create, read, deliveries, edit, test and rotate-secret. */
export const webhookRoutes: AreaRoutes = ({ route, key, method, path, body }) => {
  switch (true) {
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
    default:
      return undefined;
  }
};
