import { forbidden } from '../core/errors.ts';
import type { KeyEnvironment } from '../keys/api-key.ts';
import type { KeyRestrictions } from '../keys/key-settings.ts';
import type { ConsumeLimits } from '../limits/limiter.ts';
import type { AccountLimits } from '../limits/plans.ts';
import type { Scope } from './scopes.ts';

/** Who is calling: the API key and the account whose budget it spends. */
export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  readonly environment: KeyEnvironment;
  readonly scopes: ReadonlySet<Scope>;
  readonly limits: AccountLimits;
  /** Where and on what the key may be used, as stored; undefined when the key has none. */
  readonly restrictions?: Readonly<KeyRestrictions>;
  /** The key's own limits (null: unlimited), enforced under `limits`; undefined when the key has none. */
  readonly keyLimits?: ConsumeLimits;
  /** Set when the key was presented by its rotated-out secret: it stops working then. */
  readonly validUntil?: Date;
  /**
   * Set when a signed-in dashboard user calls a /v1 route through /dashboard/api: the principal is the
   * account itself, with every scope, both environments' networks, and the account's smart wallets.
   */
  readonly session?: { readonly userId: string };
}

export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw forbidden(`this API key lacks the scope '${scope}'`);
}

/** Test keys reach testnets only, live keys mainnets only (spec section 5). */
export function assertNetworkAccess(principal: Principal, network: { chain: string; network: string; testnet: boolean }): void {
  if (principal.session) return;
  const name = `${network.chain}/${network.network}`;
  if (principal.environment === 'test' && !network.testnet) {
    throw forbidden(`test keys (svc_test_) cannot use ${name}, which is a mainnet; use a svc_live_ key`);
  }
  if (principal.environment === 'live' && network.testnet) {
    throw forbidden(`live keys (svc_live_) cannot use ${name}, which is a testnet; use a svc_test_ key`);
  }
}
