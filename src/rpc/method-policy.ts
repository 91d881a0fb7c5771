import type { Scope } from '../auth/scopes.ts';
import type { ChainKind } from '../config/schema.ts';
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

export function scopeForMethod(kind: ChainKind, method: string): Scope {
  const writes = kind === 'solana' ? solanaWriteMethods : writeMethods;
  return writes.has(method) ? 'rpc:write' : 'rpc:read';
}

/** Node-control namespaces: only a devnet that allows them in config lets them through. */
const devNamespaces = /^(anvil|hardhat|evm|personal|admin|miner)_/;

export function isDevMethod(kind: ChainKind, method: string): boolean {
  return kind === 'evm' && devNamespaces.test(method);
}
