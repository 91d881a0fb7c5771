import type { Network } from './registry.ts';

/** A network's name in tables, leases, logs and metrics: `chain/network`. */
export function networkKey(network: Network): string {
  return `${network.config.chain}/${network.config.network}`;
}
