/** The methods the bundler answers itself (ERC-7769's); any other method on its endpoint is the chain's. */
export const bundlerCoreMethods: readonly string[] = [
  'eth_chainId',
  'eth_supportedEntryPoints',
  'eth_sendUserOperation',
  'eth_estimateUserOperationGas',
  'eth_getUserOperationByHash',
  'eth_getUserOperationReceipt',
];
