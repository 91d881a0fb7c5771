import { AppError } from '../core/errors.ts';

/** Concurrent WebSocket connections one account, and one client address, may hold. */
export interface WsConnectionCaps {
  readonly perAccount: number;
  readonly perAddress: number;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left === 0) counts.delete(key);
  else counts.set(key, left);
}

function overCap(who: string, cap: number): AppError {
  return new AppError(
    'rate_limited',
    `${who} has ${cap} WebSocket connections open, the most allowed; close one (or subscribe to more on one connection) first`,
    { headers: { 'retry-after': '1' } },
  );
}

/**
 * Counts open WebSocket connections by account and address; an upgrade past either cap is refused with
 * 429 before a WebSocket exists. A slot is held from the upgrade's acceptance until its socket closes.
 */
export function createWsConnectionCaps(caps: WsConnectionCaps) {
  const byAccount = new Map<string, number>();
  const byAddress = new Map<string, number>();
  return {
    /** Before authentication: an address at its cap costs no key lookup. */
    checkAddress(address: string): void {
      if ((byAddress.get(address) ?? 0) >= caps.perAddress) throw overCap('your address', caps.perAddress);
    },
    /** Takes a slot for the account and the address (or throws); the returned function gives it back, once. */
    admit(address: string, accountId: string): () => void {
      this.checkAddress(address);
      if ((byAccount.get(accountId) ?? 0) >= caps.perAccount) throw overCap('this account', caps.perAccount);
      increment(byAddress, address);
      increment(byAccount, accountId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        decrement(byAddress, address);
        decrement(byAccount, accountId);
      };
    },
  };
}
