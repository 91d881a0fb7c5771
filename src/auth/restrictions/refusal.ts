import { type AppError, forbidden } from '../../core/errors.ts';

/** The kinds of `restrictions` a key may carry that refuse with 403 (JWT failures are 401). */
export type RestrictionKind = 'origins' | 'ips' | 'contracts' | 'methods';

/**
 * The 403 of a request a key's restrictions refuse, naming the restriction and the value.
 * @example refusedByRestriction('ips', 'the address 198.51.100.7 is not listed')
 * // forbidden: "refused by this API key's restrictions.ips: the address 198.51.100.7 is not listed"
 */
export function refusedByRestriction(kind: RestrictionKind, what: string): AppError {
  return forbidden(restrictionRefusal(kind, what));
}

/** The message alone: a 403's, or a -32010 error's inside a JSON-RPC batch. */
export function restrictionRefusal(kind: RestrictionKind, what: string): string {
  return `refused by this API key's restrictions.${kind}: ${what}`;
}
