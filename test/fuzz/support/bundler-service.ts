import { devnetExecutorKeys } from '../../../src/bundler/executor-keys.ts';

/** startTestService options for a devnet with the bundler on, so the bundler's JSON-RPC endpoint answers. */
export const withBundler = {
  settings: { bundler_keys: devnetExecutorKeys[0] },
  chainsFor: (anvilUrl: string) => [
    {
      chain: 'ethereum',
      network: 'devnet',
      chain_id: 31337,
      testnet: true,
      dev_methods: true,
      upstreams: [{ url: anvilUrl }],
      bundler: { enabled: true },
    },
    { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: anvilUrl }] },
  ],
};
