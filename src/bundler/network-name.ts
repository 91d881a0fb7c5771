import type { Network } from '../chains/registry.ts';

/** A network's name in the bundler's tables, leases, logs and metrics: `chain/network`. */
export const networkNameOf = (network: Network): string => `${network.config.chain}/${network.config.network}`;
