// The mock dashboard API's gas policies (mock-api.ts): one active policy with its usage, one paused.
import { type AreaRoutes, day, error, iso, json } from './mock-api-support.ts';

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

/** /v1/gas/policies: list, create, usage, read and edit. */
export const gasPolicyRoutes: AreaRoutes = ({ route, key, method, path, body }) => {
  switch (true) {
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
    default:
      return undefined;
  }
};
