import type { IncomingHttpHeaders } from 'node:http';
import { addressRangeList, inAddressRangeList } from '../../core/address-ranges.ts';
import { boundedMemo } from '../../core/bounded-memo.ts';
import type { KeyRestrictions } from '../../keys/key-settings.ts';
import { jwtFromRequest } from '../extract-key.ts';
import type { Principal } from '../principal.ts';
import { compileOriginPatterns, type OriginPatterns } from './origin-patterns.ts';
import { refusedByRestriction } from './refusal.ts';
import {
  compileSignedRequestRule,
  createSignedRequestVerifier,
  type SignedRequestRule,
  type UsedTokenStore,
} from './signed-requests.ts';

/** What of a request the request-level restrictions look at. */
export interface RequestFacts {
  readonly headers: IncomingHttpHeaders;
  /** The client's address (src/http/client-address.ts). */
  readonly ip: string | undefined;
  /** Set when the same connection is checked again (an open WebSocket after a key change): a single-use token is not taken twice. */
  readonly recheck?: boolean;
}

/**
 * The restrictions a key puts on whole requests, checked after authentication wherever a key is used
 * (the /v1 guard, the JSON-RPC fast path, WebSocket upgrades): a signed request (JWT, 401), then the
 * Origin and the client address (403). Per-call restrictions (methods, contracts) are checked per
 * JSON-RPC call elsewhere.
 */
export interface RequestRestrictions {
  /**
   * Throws the refusal, or returns undefined, when that is decided at once (origins, addresses); returns
   * a promise when a signed request's token must be verified (it rejects with the refusal).
   */
  check(principal: Principal, request: RequestFacts): Promise<void> | undefined;
  /** The key's origin list, or undefined when it has none (CORS then follows the server-wide setting). */
  originsOf(principal: Principal): OriginPatterns | undefined;
}

interface CompiledRestrictions {
  readonly origins?: OriginPatterns;
  /** Whether a client address is listed (remembered per address: a BlockList of 100 ranges takes microseconds). */
  readonly ips?: (address: string) => boolean;
  readonly jwt?: SignedRequestRule;
}

/**
 * Principals are cached by the authenticator with their frozen restrictions object: each object is
 * compiled once (Sets, a BlockList, imported public keys), so a cache-hit request pays lookups only.
 */
const compiledByRestrictions = new WeakMap<Readonly<KeyRestrictions>, CompiledRestrictions>();
const nothingToCheck: CompiledRestrictions = {};

function compiled(restrictions: Readonly<KeyRestrictions> | undefined): CompiledRestrictions {
  if (restrictions === undefined) return nothingToCheck;
  let found = compiledByRestrictions.get(restrictions);
  if (found === undefined) {
    const { origins, ips, jwt } = restrictions;
    const signed = jwt === undefined ? undefined : compileSignedRequestRule(jwt);
    const parts: CompiledRestrictions = {
      ...(origins !== undefined && origins.length > 0 ? { origins: compileOriginPatterns(origins) } : {}),
      ...(ips !== undefined && ips.length > 0 ? { ips: listedAddresses(ips) } : {}),
      ...(signed === undefined ? {} : { jwt: signed }),
    };
    // Only contracts or methods: nothing for this module to check.
    found = Object.keys(parts).length === 0 ? nothingToCheck : parts;
    compiledByRestrictions.set(restrictions, found);
  }
  return found;
}

function listedAddresses(entries: readonly string[]): (address: string) => boolean {
  const list = addressRangeList(entries);
  return boundedMemo((address) => inAddressRangeList(list, address));
}

/** `jwtAudience`: setting `jwt_audience`. */
export function createRequestRestrictions(options: {
  jwtAudience: string;
  now?: () => number;
  /** Where single-use tokens' ids are kept (restrictions.jwt.single_use). */
  usedTokens?: UsedTokenStore;
}): RequestRestrictions {
  const signedRequests = createSignedRequestVerifier({
    audience: options.jwtAudience,
    now: options.now,
    usedTokens: options.usedTokens,
  });

  const checkWhereFrom = (rules: CompiledRestrictions, request: RequestFacts) => {
    if (rules.origins !== undefined) {
      const origin = request.headers.origin;
      if (origin === undefined) throw refusedByRestriction('origins', 'the request has no Origin header');
      if (!rules.origins.allows(origin)) throw refusedByRestriction('origins', `the origin '${origin}' is not listed`);
    }
    if (rules.ips !== undefined) {
      const { ip } = request;
      if (ip === undefined || !rules.ips(ip)) {
        throw refusedByRestriction('ips', `the address ${ip ?? '(unknown)'} is not listed`);
      }
    }
  };

  const checkAll = async (rules: CompiledRestrictions, request: RequestFacts, keyId: string) => {
    if (rules.jwt !== undefined)
      await signedRequests.verify(rules.jwt, jwtFromRequest(request.headers), { keyId, consume: request.recheck !== true });
    checkWhereFrom(rules, request);
  };

  return {
    check(principal, request) {
      // Dashboard sessions are the account itself, not a key.
      if (principal.restrictions === undefined || principal.session !== undefined) return undefined;
      const rules = compiled(principal.restrictions);
      if (rules.jwt !== undefined) return checkAll(rules, request, principal.keyId);
      checkWhereFrom(rules, request);
      return undefined;
    },

    originsOf(principal) {
      return principal.session === undefined ? compiled(principal.restrictions).origins : undefined;
    },
  };
}
