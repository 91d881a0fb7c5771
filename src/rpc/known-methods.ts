import { enhancedMethodNames, nftV3MethodNames } from '../alchemy/method-names.ts';
import { bundlerCoreMethods } from '../bundler/bundler-method-names.ts';
import { evmComputeUnits, restComputeUnits } from '../limits/compute-units.ts';
import { solanaComputeUnits } from '../limits/solana-compute-units.ts';

/**
 * The bundler's own methods beyond the EVM table (src/bundler/bundler-calls.ts and the cases of
 * src/bundler/bundler-service.ts): Pimlico's extensions, ERC-7677's paymaster methods, ERC-7769's debug methods.
 */
const bundlerExtensionMethods = [
  ...bundlerCoreMethods,
  'pimlico_getUserOperationGasPrice',
  'pimlico_getUserOperationStatus',
  'pimlico_sendUserOperationNow',
  'pm_getPaymasterData',
  'pm_getPaymasterStubData',
  'debug_bundler_clearMempool',
  'debug_bundler_clearReputation',
  'debug_bundler_clearState',
  'debug_bundler_dumpMempool',
  'debug_bundler_dumpReputation',
  'debug_bundler_getStakeStatus',
  'debug_bundler_sendBundleNow',
  'debug_bundler_setBundlingMode',
  'debug_bundler_setReputation',
];

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
