import { enhancedMethodNames, nftV3MethodNames } from '../alchemy/method-names.ts';
import { evmComputeUnits, restComputeUnits } from '../limits/compute-units.ts';
import { solanaComputeUnits } from '../limits/solana-compute-units.ts';
import { bundlerExtensionMethods } from './bundler-method-names.ts';

const knownMethods: ReadonlySet<string> = new Set([
  ...Object.keys(evmComputeUnits),
  ...Object.keys(solanaComputeUnits),
  ...enhancedMethodNames,
  ...bundlerExtensionMethods,
  // The REST and NFT routes' names (src/http/route-restrictions.ts), which a key's `methods` can list too.
  ...nftV3MethodNames,
  ...Object.keys(restComputeUnits),
  'eth_subscribe',
  'eth_unsubscribe',
]);

/**
 * Whether a JSON-RPC method is one Blockyard prices or answers (EVM, Solana, Alchemy's enhanced methods,
 * the bundler's), so a key's method allowlist can refuse a misspelt name when it is set, not at use.
 * @example isKnownRpcMethod('eth_call') // true
 */
export function isKnownRpcMethod(name: string): boolean {
  return knownMethods.has(name);
}
