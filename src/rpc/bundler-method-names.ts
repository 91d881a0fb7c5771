/** The methods the bundler answers itself (ERC-7769's); any other method on its endpoint is the chain's. */
export const bundlerCoreMethods: readonly string[] = [
  'eth_chainId',
  'eth_supportedEntryPoints',
  'eth_sendUserOperation',
  'eth_estimateUserOperationGas',
  'eth_getUserOperationByHash',
  'eth_getUserOperationReceipt',
];

/**
 * The bundler's own methods beyond the EVM table (src/bundler/bundler-calls.ts and the cases of
 * src/bundler/bundler-service.ts): Pimlico's extensions, ERC-7677's paymaster methods, ERC-7769's debug methods.
 */
export const bundlerExtensionMethods = [
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
