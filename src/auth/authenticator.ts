import { isAppError, unauthorized } from '../core/errors.ts';
import { hashApiKey, isWellFormedApiKey } from '../keys/api-key.ts';
import type { KeyLimits, KeyRestrictions } from '../keys/key-settings.ts';
import type { ConsumeLimits } from '../limits/limiter.ts';
import { resolveLimits } from '../limits/plans.ts';
import type { KeyLookup } from './key-lookup.ts';
import type { Principal } from './principal.ts';
import { isScope } from './scopes.ts';

export interface Authenticator {
  /** The principal of a key, or `unauthorized` for a missing, malformed, unknown or revoked key. */
  authenticate(key: string | undefined): Promise<Principal>;
  /** Drops a key from the cache at once (after a change: restrict, rotate, revoke). */
  forget(keyId: string): void;
  /** Drops every key from the cache (key changes may have been missed). */
  forgetAll(): void;
  /**
   * Calls `listener` after each forget (a key's id; undefined: every key), so what holds a key for
   * longer than a request (an open WebSocket) can read it again. Returns the unsubscribe.
   */
  onForget(listener: (keyId: string | undefined) => void): () => void;
}

/** Why a key is refused, cached like a principal. */
interface Refusal {
  readonly refusal: string;
}

interface CacheEntry {
  principal: Principal | Refusal;
  expiresAt: number;
}

const unknownKey: Refusal = { refusal: 'invalid API key' };
const revokedKey: Refusal = { refusal: 'this API key has been revoked' };

function rotatedOut(at: Date): Refusal {
  return { refusal: `this API key was rotated; its previous secret stopped working at ${at.toISOString()}` };
}

/**
 * Looks keys up by their SHA-256 and caches the answer for `cacheTtlMs`, so the hot path does no
 * database work. A key change is immediate: this process's admin API calls `forget`, every other
 * process hears it through LISTEN (src/accounts/key-change-listener.ts). A rotated-out secret stops at
 * its `validUntil` even while cached.
 */
export function createAuthenticator(deps: {
  store: KeyLookup;
  cacheTtlMs?: number;
  /** How long past its expiry a cached key is still used while the database cannot be reached. */
  staleForMs?: number;
  maxEntries?: number;
  now?: () => number;
}): Authenticator {
  const { store, cacheTtlMs = 10_000, staleForMs = 15 * 60_000, maxEntries = 50_000, now = Date.now } = deps;
  const cache = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<CacheEntry['principal']>>();
  // Bumped by every forget: a lookup that began before a key change may have read the key as it was,
  // so its answer serves the requests that waited for it but is not cached (nor joined by later ones).
  let generation = 0;
  const forgetListeners = new Set<(keyId: string | undefined) => void>();
  const forgotten = (keyId: string | undefined) => {
    for (const listener of forgetListeners) listener(keyId);
  };

  async function lookup(key: string): Promise<CacheEntry['principal']> {
    const row = await store.findKeyByHash(hashApiKey(key));
    if (!row) return unknownKey;
    if (row.revoked_at) return revokedKey;
    if (row.valid_until !== null && row.valid_until.getTime() <= now()) return rotatedOut(row.valid_until);
    return Object.freeze({
      keyId: row.key_id,
      accountId: row.account_id,
      environment: row.environment,
      scopes: new Set(row.scopes.filter(isScope)),
      limits: resolveLimits(row.plan, row.limits),
      ...(hasRestrictions(row.restrictions) ? { restrictions: Object.freeze(row.restrictions) } : {}),
      ...(hasKeyLimits(row.key_limits) ? { keyLimits: keyLimitsOf(row.key_limits) } : {}),
      ...(row.valid_until !== null ? { validUntil: row.valid_until } : {}),
    });
  }

  function remember(key: string, principal: CacheEntry['principal']) {
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { principal, expiresAt: now() + cacheTtlMs });
  }

  return {
    async authenticate(key) {
      if (key === undefined) throw unauthorized('missing API key: send it as X-API-Key: <key> or Authorization: Bearer <key>');
      if (!isWellFormedApiKey(key)) throw unauthorized('malformed API key: expected svc_test_… or svc_live_…');
      let entry = cache.get(key);
      if (!entry || entry.expiresAt <= now()) {
        let pending = inFlight.get(key);
        if (!pending) {
          const started = lookup(key).finally(() => {
            if (inFlight.get(key) === started) inFlight.delete(key);
          });
          inFlight.set(key, started);
          pending = started;
        }
        const stale = entry;
        const startedAt = generation;
        try {
          const principal = await pending;
          if (startedAt === generation) remember(key, principal);
          entry = { principal, expiresAt: 0 };
        } catch (error) {
          // The database is down: a key known a moment ago keeps working (up to `staleForMs`) rather than
          // every call failing; unknown keys get the 503.
          if (!stale || !isAppError(error) || error.code !== 'service_unavailable' || now() - stale.expiresAt > staleForMs)
            throw error;
          entry = stale;
        }
      }
      const { principal } = entry;
      if ('refusal' in principal) throw unauthorized(principal.refusal);
      if (principal.validUntil !== undefined && principal.validUntil.getTime() <= now())
        throw unauthorized(rotatedOut(principal.validUntil).refusal);
      return principal;
    },

    forget(keyId) {
      generation++;
      inFlight.clear();
      for (const [key, entry] of cache) {
        if ('keyId' in entry.principal && entry.principal.keyId === keyId) cache.delete(key);
      }
      forgotten(keyId);
    },

    forgetAll() {
      generation++;
      inFlight.clear();
      cache.clear();
      forgotten(undefined);
    },

    onForget(listener) {
      forgetListeners.add(listener);
      return () => forgetListeners.delete(listener);
    },
  };
}

function hasRestrictions(restrictions: KeyRestrictions): boolean {
  const { origins, ips, contracts, methods, jwt } = restrictions;
  return (
    [origins, ips, contracts, methods].some((list) => list !== undefined && list.length > 0) ||
    jwt?.required === true ||
    (jwt?.public_keys.length ?? 0) > 0
  );
}

function hasKeyLimits(limits: KeyLimits): boolean {
  return [limits.rps, limits.rpd, limits.cups].some((value) => typeof value === 'number');
}

function keyLimitsOf(limits: KeyLimits): ConsumeLimits {
  return { rps: limits.rps ?? null, rpd: limits.rpd ?? null, cups: limits.cups ?? null };
}
