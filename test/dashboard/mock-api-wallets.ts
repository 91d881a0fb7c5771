// The mock dashboard API's smart wallets (mock-api.ts): one deployed, one counterfactual.
import { type AreaRoutes, day, error, iso, json } from './mock-api-support.ts';

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

/** /v1/wallets: list and read. */
export const walletRoutes: AreaRoutes = ({ route, key, method, path }) => {
  switch (true) {
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
    default:
      return undefined;
  }
};
