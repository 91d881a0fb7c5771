/**
 * The member names of the JSON-RPC params objects Blockyard forwards or answers, spelled as the
 * nodes and the specs spell them. Rust nodes (anvil, reth) and Solana read member names exactly and
 * ignore any other spelling, Go nodes (geth, erigon, op-geth, bor) fold case: `{"To": …}` is a call
 * to `to` on one and a contract creation on the other, so the proxy's checks (a key's `contracts`
 * list above all) could never agree with both. A member that differs from one of these only by case
 * is refused (`caseVariantOf`); names that are no case variant of these pass unchanged.
 */
const words = (names: string): readonly string[] => names.split(' ');

const canonicalGroups: Readonly<Record<string, readonly string[]>> = {
  // Transaction and call objects (geth's TransactionArgs, alloy's TransactionRequest), access lists, EIP-7702 authorizations.
  call: words(
    'from to gas gasPrice maxFeePerGas maxPriorityFeePerGas maxFeePerBlobGas value nonce data input ' +
      'accessList storageKeys chainId type blobVersionedHashes blobs commitments proofs sidecar ' +
      'authorizationList address yParity r s v',
  ),
  // Block identifiers (EIP-1898) and log filters (eth_getLogs, eth_newFilter, eth_subscribe logs).
  blockAndFilter: words('blockNumber blockHash requireCanonical fromBlock toBlock topics'),
  // State and block overrides, eth_simulateV1, eth_callMany.
  overrides: words(
    'balance code state stateDiff movePrecompileToAddress number difficulty time gasLimit coinbase ' +
      'feeRecipient random prevRandao baseFee baseFeePerGas blobBaseFee beaconRoot withdrawals index ' +
      'validatorIndex amount blockStateCalls blockOverrides stateOverrides calls traceTransfers validation ' +
      'returnFullTransactions transactions blockOverride transactionIndex',
  ),
  // debug_trace* options and tracer configs; trace_filter.
  tracing: words(
    'tracer tracerConfig timeout reexec txIndex disableStorage disableStack enableMemory disableMemory ' +
      'enableReturnData disableReturnData debug limit overrides onlyTopCall withLog diffMode disableCode ' +
      'fromAddress toAddress after count',
  ),
  // Conditional, private and bundled sends.
  sends: words(
    'knownAccounts blockNumberMin blockNumberMax timestampMin timestampMax tx maxBlockNumber preferences ' +
      'fast privacy hints builders validity refund refundConfig percent txs minTimestamp maxTimestamp ' +
      'revertingTxHashes droppingTxHashes replacementUuid stateBlockNumber timestamp refundPercent ' +
      'refundRecipient refundTxHashes',
  ),
  // UserOperations (ERC-4337 v0.6 to v0.8), ERC-7677 contexts, ERC-7769's debug_bundler_setReputation.
  userOperation: words(
    'sender factory factoryData initCode callData callGasLimit verificationGasLimit preVerificationGas ' +
      'paymaster paymasterVerificationGasLimit paymasterPostOpGasLimit paymasterData paymasterAndData ' +
      'signature eip7702Auth policy_id policyId opsSeen opsIncluded status',
  ),
  // Alchemy's methods and subscriptions (alchemy_getAssetTransfers, alchemy_minedTransactions…), Nethermind's newPendingTransactions option.
  alchemy: words(
    'contractAddresses category order withMetadata excludeZeroValue maxCount pageKey addresses ' +
      'includeRemoved hashesOnly includeTransactions',
  ),
  // Devnet node control: anvil_reset/hardhat_reset, evm_mine.
  devnet: words('forking jsonRpcUrl blocks'),
  // Solana's config objects.
  solana: words(
    'commitment encoding minContextSlot dataSlice offset length filters memcmp bytes dataSize withContext ' +
      'skipPreflight preflightCommitment maxRetries sigVerify replaceRecentBlockhash accounts ' +
      'innerInstructions transactionDetails rewards maxSupportedTransactionVersion searchTransactionHistory ' +
      'before until mint programId identity range firstSlot lastSlot filter epoch votePubkey ' +
      'keepUnstakedDelinquents delinquentSlotDistance excludeNonCirculatingAccountsList changedSinceSlot',
  ),
};

/** Every canonical name, for the documentation's test and the lookups below. */
export const canonicalMemberNames: readonly string[] = [...new Set(Object.values(canonicalGroups).flat())];

const canonical = new Set(canonicalMemberNames);

/**
 * Case folded one character at a time, as Go's encoding/json matches names (unicode simple folding:
 * `ſ` is `s`, the Kelvin sign `k`); a character whose upper case is longer (`ß`) stays as it is, as
 * Go does not match it either. The result has the name's length.
 */
export function foldCase(name: string): string {
  let folded = '';
  for (const char of name) {
    const upper = char.toLowerCase().toUpperCase();
    folded += upper.length === char.length ? upper : char;
  }
  return folded;
}

const canonicalByFold = new Map(canonicalMemberNames.map((name) => [foldCase(name), name]));

/**
 * The canonical name `name` is a case variant of, or undefined (`name` is canonical, or no variant).
 * @example caseVariantOf('To') // 'to'
 */
export function caseVariantOf(name: string): string | undefined {
  if (canonical.has(name)) return undefined;
  const found = canonicalByFold.get(foldCase(name));
  return found === name ? undefined : found;
}

/**
 * Methods whose params hold the client's own data as member names (EIP-712 typed data: its types and
 * message fields are named by the signer's contract), nothing a node reads as an instruction.
 */
const freeFormMethods = new Set(['eth_signTypedData', 'eth_signTypedData_v1', 'eth_signTypedData_v3', 'eth_signTypedData_v4']);

/** Whether the member names of a method's params are checked against the canonical names. */
export function checksMemberNames(method: string | undefined): boolean {
  return method === undefined || !freeFormMethods.has(method);
}
