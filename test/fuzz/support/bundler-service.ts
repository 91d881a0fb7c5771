import { devnetExecutorKeys } from '../../../src/bundler/executor-keys.ts';
import { devnetSponsorKey } from '../../../src/paymaster/sponsor-key.ts';
import { devnetPaymasters } from '../../paymaster/support.ts';
import { devnetChain } from '../../support/service.ts';

/**
 * startTestService options for a devnet configured as `npm start` has it: the bundler on, and gas
 * sponsorship (sponsor key, verifying paymasters, a native price), so that every route can succeed and
 * a refusal is the request's doing, not a missing setting's. The paymasters are installed with
 * `installDevnetPaymasters` once the service runs.
 */
export const withBundler = {
  settings: {
    bundler_keys: devnetExecutorKeys[0],
    sponsor_key: devnetSponsorKey,
    tokens: { prices: [{ chain: 'ethereum', network: 'devnet', contract: 'native', usd: '3000' }] },
  },
  chainsFor: (anvilUrl: string) => [
    devnetChain(anvilUrl, {
      bundler: { enabled: true },
      erc4337: { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 },
    }),
    { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: anvilUrl }] },
  ],
};
