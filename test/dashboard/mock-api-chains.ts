// The mock dashboard API's chains (mock-api.ts): a local devnet with its indexer, and mainnet with a failing
// fallback upstream.
import { type AreaRoutes, day, iso, json } from './mock-api-support.ts';

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

/** GET /chains. */
export const chainRoutes: AreaRoutes = ({ route, key }) => {
  switch (true) {
    case key === 'GET /chains':
      return json(route, 200, chains);
    default:
      return undefined;
  }
};
