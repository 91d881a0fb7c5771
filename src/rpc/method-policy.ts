import { isEnhancedMethod, isSimulationMethod } from '../alchemy/method-names.ts';
import type { Scope } from '../auth/scopes.ts';
import type { ChainKind } from '../config/chain-settings.ts';
import { evmComputeUnits } from '../limits/compute-units.ts';
import { solanaWriteMethods } from '../limits/solana-compute-units.ts';

/** Methods that change chain state: gated by `rpc:write`. Everything else needs `rpc:read`. */
const writeMethods = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_sendRawTransactionConditional',
  'eth_sendRawTransactionSync',
  'eth_sendPrivateTransaction',
  'eth_sendPrivateRawTransaction',
  'eth_cancelPrivateTransaction',
  'eth_sendBundle',
]);

/**
 * eth_* methods that use the node's own accounts (sign with its keys): a real node's accounts are the
 * operator's, so only devnets (`dev_methods`) let them through. `eth_accounts` is served everywhere:
 * elsewhere the proxy answers `[]` itself, as the providers do (src/rpc/proxy.ts), and never asks the node.
 */
const nodeAccountMethods = new Set(['eth_sendTransaction']);

/** Namespaces served to every key with the scope. */
const openNamespaces = /^(?:eth|net|web3)_/;

/**
 * Node-control namespaces: they change a node's state for everyone (balances, code, time, mining,
 * peers, the mempool). Only devnets (`dev_methods`) let them through, and only to `rpc:write`.
 */
const nodeControlNamespaces = /^(?:anvil|hardhat|evm|personal|admin|miner|txpool|debug)_/;

/** What a key may do with a method on a network. */
export type MethodAccess = { readonly allowed: true; readonly scope: Scope } | { readonly allowed: false };

const refused: MethodAccess = Object.freeze({ allowed: false });
const read: MethodAccess = Object.freeze({ allowed: true, scope: 'rpc:read' });
const write: MethodAccess = Object.freeze({ allowed: true, scope: 'rpc:write' });
/** Alchemy's enhanced methods read Blockyard's own data (transfers, token balances): the data APIs' scope. */
const dataRead: MethodAccess = Object.freeze({ allowed: true, scope: 'data:read' });

/**
 * The method allowlist. EVM: `eth_*`, `net_*`, `web3_*`, and the `debug_*` and `trace_*` reads priced in
 * src/limits/compute-units.ts, Alchemy's enhanced methods Blockyard answers itself (src/alchemy, `data:read`; the simulation methods `rpc:read`);
 * `eth_accounts` (answered `[]` without `dev_methods`); on a `dev_methods` network also the node's accounts
 * (`eth_sign*`, `eth_sendTransaction`) and, with `rpc:write`, the node-control namespaces (`anvil_*`,
 * `evm_*`, `debug_setHead`…). `engine_*` and anything else never. Solana: every method, by its own table.
 *
 * @example methodAccess('evm', 'anvil_setBalance', false) // { allowed: false }
 */
export function methodAccess(kind: ChainKind, method: string, devMethods: boolean): MethodAccess {
  if (kind === 'solana') return solanaWriteMethods.has(method) ? write : read;
  if (openNamespaces.test(method)) {
    if ((nodeAccountMethods.has(method) || method.startsWith('eth_sign')) && !devMethods) return refused;
    return writeMethods.has(method) ? write : read;
  }
  if (isPricedTraceRead(method)) return read;
  if (isSimulationMethod(method)) return read;
  if (isEnhancedMethod(method)) return dataRead;
  if (devMethods && nodeControlNamespaces.test(method)) return write;
  return refused;
}

/** The debug and trace reads with a compute-unit price: other debug methods (debug_setHead, debug_writeMemProfile…) control the node. */
function isPricedTraceRead(method: string): boolean {
  return (method.startsWith('debug_') || method.startsWith('trace_')) && Object.hasOwn(evmComputeUnits, method);
}

/** Whether forwarding the call may change what head-state reads return (a write or a node-control call). */
export function mayChangeState(method: string): boolean {
  return writeMethods.has(method) || (nodeControlNamespaces.test(method) && !isPricedTraceRead(method));
}

/**
 * Node-control calls that leave every mined block as it was: they mine on top, change what the next
 * block holds, or touch the mempool, the accounts, the node's settings. `evm_revert`, `anvil_reset`,
 * `anvil_rollback`, `anvil_reorg`, `debug_setHead`, `anvil_loadState`, `anvil_setChainId` are not here.
 */
const keepsHistory =
  /^(?:(?:evm|anvil|hardhat)_(?:mine|mine_detailed|snapshot|increaseTime|setNextBlockTimestamp|setBlockTimestampInterval|removeBlockTimestampInterval|setBalance|addBalance|setCode|setNonce|setStorageAt|impersonateAccount|stopImpersonatingAccount|autoImpersonateAccount|setAutomine|getAutomine|setIntervalMining|getIntervalMining|setNextBlockBaseFeePerGas|setMinGasPrice|setCoinbase|setBlockGasLimit|dropTransaction|dropAllTransactions|removePoolTransactions|setLoggingEnabled|nodeInfo|metadata|dumpState|enableTraces)|(?:txpool|personal|miner|admin)_\w+)$/;

/**
 * Whether forwarding the call may rewrite the chain's history, final blocks included: a node-control
 * call on a devnet other than those that keep every mined block (`evm_revert`, `anvil_reset`,
 * `anvil_rollback`, `debug_setHead`, `anvil_setChainId`, and any the proxy does not know).
 */
export function mayRewriteHistory(method: string): boolean {
  return nodeControlNamespaces.test(method) && !isPricedTraceRead(method) && !keepsHistory.test(method);
}

/** Writes go to every healthy upstream (more nodes gossip the transaction). */
export function isWriteMethod(kind: ChainKind, method: string): boolean {
  return (kind === 'solana' ? solanaWriteMethods : writeMethods).has(method);
}
