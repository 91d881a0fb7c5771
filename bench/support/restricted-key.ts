import { evmComputeUnits } from '../../src/limits/compute-units.ts';
import { solanaComputeUnits } from '../../src/limits/solana-compute-units.ts';

/** How many entries each allowlist of the restricted key holds (issue 24's Speed target). */
export const allowlistSize = 100;

/** The Origin the restricted row's requests carry: the last of the key's origins. */
export const benchOrigin = `https://app-${allowlistSize - 1}.example.com`;

/**
 * A key's four allowlists of `allowlistSize` entries each, every one letting the benchmarked request
 * through: the request's Origin, 127.0.0.1 and `method` are the **last** entries (a list read in order
 * reads all of it), the rest are other origins (exact and wildcard), IPv4 and IPv6 ranges, contracts
 * and methods. `method` (eth_chainId) touches no contract, so the contracts list is only consulted.
 */
export function fullAllowlists(method: string): Record<string, string[]> {
  const others = allowlistSize - 1;
  const origins = Array.from({ length: others }, (_, i) =>
    i % 2 === 0 ? `https://app-${i}.example.com` : `https://*.tenant-${i}.example.org`,
  );
  const ips = Array.from({ length: others }, (_, i) => (i % 2 === 0 ? `10.${i}.0.0/16` : `2001:db8:${i.toString(16)}::/48`));
  const contracts = Array.from({ length: allowlistSize }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
  const methods = [...Object.keys(evmComputeUnits), ...Object.keys(solanaComputeUnits).sort()]
    .filter((name) => name !== method)
    .slice(0, others);
  if (methods.length < others) throw new Error(`only ${methods.length} other method names to list`);
  return {
    origins: [...origins, benchOrigin],
    ips: [...ips, '127.0.0.1'],
    contracts,
    methods: [...methods, method],
  };
}
