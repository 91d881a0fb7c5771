import { type Hex, parseTransaction } from 'viem';
import { foldName } from './params-shape.ts';

/**
 * What one JSON-RPC call names for a key's `contracts` restriction: the addresses it touches (each must
 * be listed; values as the client sent them, strings or not), or why it cannot be checked (it names
 * none where it must, or its raw transaction does not decode). Calls that touch no contract
 * (eth_blockNumber, eth_getBalance, eth_getTransactionReceipt…) are absent from the table: they pass.
 */
export type NamedContracts = { readonly contracts: readonly unknown[] } | { readonly missing: string };

type Extractor = (params: unknown, method: string) => NamedContracts;

/**
 * A member by name as a Go node reads it: case-insensitively, character by character (`To`, and `ſ`
 * or the Kelvin sign for `s` and `k`, as Go's simple folding does; never `ß` for `ss`, which Go does
 * not match either). parse-call.ts already refused two members that differ only in case, and any case
 * variant of a canonical name (member-names.ts, which holds every name read here), so only the exact
 * spelling is ever found: the folding is a second line, not the rule.
 */
function member(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name];
  for (const key of Object.keys(record)) if (key.length === name.length && foldsTo(key, name)) return record[key];
  return undefined;
}

function foldsTo(key: string, name: string): boolean {
  for (let i = 0; i < key.length; i++) {
    if (key[i] !== name[i] && foldName(key[i]!) !== foldName(name[i]!)) return false;
  }
  return true;
}

const positional = (params: unknown, index: number): unknown => (Array.isArray(params) ? params[index] : undefined);

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

/** A transaction-call object's targets: `to` (required here) and the delegates of an EIP-7702 authorization list. */
function callObjectTargets(call: unknown, method: string): NamedContracts {
  const to = member(call, 'to');
  if (!isPresent(to)) return { missing: `${method} must name its contract ('to')` };
  const delegates = member(call, 'authorizationList');
  const more = Array.isArray(delegates) ? delegates.map((entry) => member(entry, 'address')) : [];
  return { contracts: [to, ...more] };
}

/** Many call objects: every one's targets; none at all is refused (nothing to check is not allowed). */
function manyCallTargets(calls: readonly unknown[], method: string): NamedContracts {
  const contracts: unknown[] = [];
  for (const call of calls) {
    const named = callObjectTargets(call, method);
    if ('missing' in named) return named;
    contracts.push(...named.contracts);
  }
  return contracts.length === 0 ? { missing: `${method} must name its contracts` } : { contracts };
}

/**
 * A logs subscription names its addresses; a mined- or pending-transactions one its recipients (a key
 * limited to contracts sees transactions to them only); the other kinds name no contract.
 */
function subscriptionContracts(params: unknown): NamedContracts {
  const kind = positional(params, 0);
  if (kind === 'logs') return filterAddresses(positional(params, 1), 'a logs subscription');
  if (kind === 'alchemy_pendingTransactions') return pendingSubscriptionContracts(positional(params, 1));
  if (kind === 'newPendingTransactions' && wholePendingAsked(positional(params, 1))) {
    return { missing: "whole pending transactions go to every contract: use alchemy_pendingTransactions with 'toAddress'" };
  }
  if (kind !== 'alchemy_minedTransactions') return { contracts: [] };
  const entries = member(positional(params, 1), 'addresses');
  const recipients = Array.isArray(entries) ? entries.map((entry) => member(entry, 'to')) : [];
  if (recipients.length === 0 || !recipients.every(isPresent)) {
    return { missing: "an alchemy_minedTransactions subscription must name a recipient ('to') in each of its addresses" };
  }
  return { contracts: recipients };
}

/** newPendingTransactions asked for whole transactions (geth's `true`, Nethermind's `{includeTransactions: true}`). */
const wholePendingAsked = (options: unknown) => options === true || member(options, 'includeTransactions') === true;

/** A pending-transactions subscription: its `toAddress` list, and no `fromAddress` (which would take transactions to any contract). */
function pendingSubscriptionContracts(options: unknown): NamedContracts {
  const to = member(options, 'toAddress');
  const recipients = Array.isArray(to) ? to : isPresent(to) ? [to] : [];
  if (recipients.length === 0 || isPresent(member(options, 'fromAddress'))) {
    return { missing: "an alchemy_pendingTransactions subscription must name its recipients ('toAddress') and no 'fromAddress'" };
  }
  return { contracts: recipients };
}

/** A signed transaction as sent: decoded, its `to` and its authorizations' delegates. */
function rawTransactionTargets(raw: unknown, method: string): NamedContracts {
  if (typeof raw !== 'string' || !raw.startsWith('0x')) return { missing: `${method}: the raw transaction cannot be decoded` };
  let transaction: ReturnType<typeof parseTransaction>;
  try {
    transaction = parseTransaction(raw as Hex);
  } catch {
    return { missing: `${method}: the raw transaction cannot be decoded` };
  }
  if (!isPresent(transaction.to)) return { missing: `${method} creates a contract (a transaction without 'to')` };
  const delegates =
    'authorizationList' in transaction && Array.isArray(transaction.authorizationList) ? transaction.authorizationList : [];
  return { contracts: [transaction.to, ...delegates.map((authorization) => authorization.address)] };
}

function manyRawTargets(raws: unknown, method: string): NamedContracts {
  if (!Array.isArray(raws) || raws.length === 0) return { missing: `${method} must name its transactions` };
  const contracts: unknown[] = [];
  for (const raw of raws) {
    const named = rawTransactionTargets(raw, method);
    if ('missing' in named) return named;
    contracts.push(...named.contracts);
  }
  return { contracts };
}

/** A log filter's `address`: one address or a list; a filter without any matches every contract, so it is refused. */
function filterAddresses(filter: unknown, what: string): NamedContracts {
  const address = member(filter, 'address');
  const list = Array.isArray(address) ? address : isPresent(address) ? [address] : [];
  return list.length === 0 ? { missing: `${what} must name its addresses` } : { contracts: list };
}

/** The address at `index` of the params, required. */
const addressAt =
  (index: number): Extractor =>
  (params, method) => {
    const address = positional(params, index);
    return isPresent(address) ? { contracts: [address] } : { missing: `${method} must name its contract` };
  };

/**
 * The accounts a state override changes (its member names): a call may not give an unlisted
 * contract other code or storage. Overriding a listed contract's code is the key holder's own choice.
 */
function overriddenAccounts(overrides: unknown): string[] {
  return overrides !== null && typeof overrides === 'object' && !Array.isArray(overrides) ? Object.keys(overrides) : [];
}

/** A call object and the state override beside it (`eth_call`'s third param, `debug_traceCall`'s `stateOverrides`). */
function withOverrides(named: NamedContracts, overrides: unknown): NamedContracts {
  const accounts = overriddenAccounts(overrides);
  return accounts.length === 0 || 'missing' in named ? named : { contracts: [...named.contracts, ...accounts] };
}

const firstCallObject: Extractor = (params, method) => callObjectTargets(positional(params, 0), method);
/** eth_call and eth_estimateGas: `[call, block, stateOverride]`. */
const overriddenCallObject: Extractor = (params, method) =>
  withOverrides(callObjectTargets(positional(params, 0), method), positional(params, 2));
const tracedCallObject: Extractor = (params, method) =>
  withOverrides(callObjectTargets(positional(params, 0), method), member(positional(params, 2), 'stateOverrides'));
const firstRawTransaction: Extractor = (params, method) => rawTransactionTargets(positional(params, 0), method);
const firstFilter: Extractor = (params, method) => filterAddresses(positional(params, 0), method);

/** Transfers of ETH (external, internal) name no contract; token transfers must name theirs. */
const contractFreeTransferCategories = new Set(['external', 'internal']);

function assetTransferContracts(params: unknown, method: string): NamedContracts {
  const filter = positional(params, 0);
  const contracts = member(filter, 'contractAddresses');
  if (Array.isArray(contracts) && contracts.length > 0) return { contracts };
  const categories = member(filter, 'category');
  const ethOnly =
    Array.isArray(categories) &&
    categories.length > 0 &&
    categories.every((category) => contractFreeTransferCategories.has(category as string));
  return ethOnly
    ? { contracts: [] }
    : { missing: `${method} must name its contractAddresses (or ask only for external and internal transfers)` };
}

/**
 * The methods that name a contract, and where. Infura's contract allowlist covers eth_call,
 * eth_estimateGas, eth_getLogs, eth_getCode, eth_getStorageAt (and the account reads eth_getBalance,
 * eth_getTransactionCount, which name wallets rather than contracts: not here); Alchemy's eth_call,
 * eth_getCode, eth_getLogs, eth_getStorageAt. Blockyard adds every other call that runs or sends a
 * transaction (or a bundle of them) and its own enhanced methods, so no method reaches an unlisted
 * contract around the list. docs/keys-calls.md lists them.
 */
const extractors: ReadonlyMap<string, Extractor> = new Map<string, Extractor>([
  ['eth_call', overriddenCallObject],
  ['eth_estimateGas', overriddenCallObject],
  ['eth_createAccessList', firstCallObject],
  ['eth_sendTransaction', firstCallObject],
  ['eth_signTransaction', firstCallObject],
  ['eth_fillTransaction', firstCallObject],
  ['debug_traceCall', tracedCallObject],
  ['trace_call', firstCallObject],
  [
    'trace_callMany',
    (params, method) => {
      const pairs = positional(params, 0);
      return manyCallTargets(Array.isArray(pairs) ? pairs.map((pair) => positional(pair, 0)) : [], method);
    },
  ],
  [
    'eth_callMany',
    (params, method) => {
      const bundles = positional(params, 0);
      const calls = Array.isArray(bundles) ? bundles.flatMap((bundle) => listOf(member(bundle, 'transactions'))) : [];
      return manyCallTargets(calls, method);
    },
  ],
  [
    'eth_simulateV1',
    (params, method) => {
      const blocks = listOf(member(positional(params, 0), 'blockStateCalls'));
      const calls = manyCallTargets(
        blocks.flatMap((block) => listOf(member(block, 'calls'))),
        method,
      );
      return blocks.reduce((named: NamedContracts, block) => withOverrides(named, member(block, 'stateOverrides')), calls);
    },
  ],
  ['eth_sendRawTransaction', firstRawTransaction],
  ['eth_sendRawTransactionConditional', firstRawTransaction],
  ['eth_sendRawTransactionSync', firstRawTransaction],
  ['eth_sendPrivateRawTransaction', firstRawTransaction],
  ['trace_rawTransaction', firstRawTransaction],
  ['eth_sendPrivateTransaction', (params, method) => rawTransactionTargets(member(positional(params, 0), 'tx'), method)],
  ['eth_sendBundle', (params, method) => manyRawTargets(member(positional(params, 0), 'txs'), method)],
  ['eth_callBundle', (params, method) => manyRawTargets(member(positional(params, 0), 'txs'), method)],
  ['eth_getCode', addressAt(0)],
  ['eth_getStorageAt', addressAt(0)],
  ['eth_getProof', addressAt(0)],
  ['debug_storageRangeAt', addressAt(2)],
  ['eth_getLogs', firstFilter],
  ['eth_newFilter', firstFilter],
  [
    'trace_filter',
    (params, method) => {
      const to = member(positional(params, 0), 'toAddress');
      return Array.isArray(to) && to.length > 0 ? { contracts: to } : { missing: `${method} must name its toAddress` };
    },
  ],
  ['eth_subscribe', subscriptionContracts],
  [
    'alchemy_getTokenBalances',
    (params, method) => {
      const contracts = positional(params, 1);
      return Array.isArray(contracts) && contracts.length > 0
        ? { contracts }
        : { missing: `${method} must name its contracts (a list, not "erc20")` };
    },
  ],
  ['alchemy_getTokenMetadata', addressAt(0)],
  [
    'alchemy_getTokenAllowance',
    (params, method) => {
      const contract = member(positional(params, 0), 'contract');
      return isPresent(contract) ? { contracts: [contract] } : { missing: `${method} must name its contract` };
    },
  ],
  ['alchemy_getAssetTransfers', assetTransferContracts],
  ['alchemy_simulateAssetChanges', simulatedCalls(false)],
  ['alchemy_simulateExecution', simulatedCalls(false)],
  ['alchemy_simulateAssetChangesBundle', simulatedCalls(true)],
  ['alchemy_simulateExecutionBundle', simulatedCalls(true)],
  [
    'alchemy_simulateUserOperationAssetChanges',
    (params, method) => {
      const sender = member(positional(params, 0), 'sender');
      const entryPoint = positional(params, 1);
      return isPresent(sender) && isPresent(entryPoint)
        ? { contracts: [entryPoint, sender] }
        : { missing: `${method} must name its sender and EntryPoint` };
    },
  ],
]);

/**
 * Alchemy's simulation methods: the transactions' targets, from `[tx, block?]` or `[[tx, …], block?]`,
 * after the format string alchemy_simulateExecution may lead with (`["FLAT", tx]`).
 */
function simulatedCalls(bundle: boolean): Extractor {
  return (params, method) => {
    const list = Array.isArray(params) && typeof params[0] === 'string' ? params.slice(1) : params;
    const first = positional(list, 0);
    return bundle ? manyCallTargets(listOf(first), method) : callObjectTargets(first, method);
  };
}

function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The contracts a call names, or why it cannot be checked; undefined when the method names none. */
export function contractsNamedBy(method: string, params: unknown): NamedContracts | undefined {
  const extract = extractors.get(method);
  return extract === undefined ? undefined : extract(params, method);
}

/** The methods `contractsNamedBy` knows, for the documentation's test. */
export const contractNamingMethods: readonly string[] = [...extractors.keys()];
