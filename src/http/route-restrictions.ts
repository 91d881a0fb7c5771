import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { refusedByRestriction } from '../auth/restrictions/refusal.ts';

/** The contracts a route reads: those its request names, or, when it reads across contracts, the parameter that would name them. */
export type RouteContracts = { readonly named: readonly string[] } | { readonly unnamed: string | undefined };

/**
 * A route's rule as the OpenAPI document publishes it (`x-contracts`): the parameter that names the
 * contracts it reads, and whether the route reads every contract when that parameter is absent.
 */
export interface PublishedContracts {
  readonly parameter?: { readonly name: string; readonly in: 'query' | 'path' };
  readonly readsEveryWithout: boolean;
}

/** The contracts a request of the route reads, and the rule published for it. */
export interface ContractsRule {
  (request: FastifyRequest): RouteContracts;
  readonly published: PublishedContracts;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The name a key's `methods` list gives this route (Alchemy's method name for its URL-form routes,
     * e.g. `getNFTsForOwner`; the compute-unit name for Blockyard's own, e.g. `nfts.owned`). A route
     * with one is refused to a key whose `methods` does not list it.
     */
    methodName?: string;
    /** The contracts the request reads, checked against a key's `contracts` list (routes about contracts). */
    contracts?: ContractsRule;
  }
}

/**
 * A key's `methods` and `contracts` on a REST or NFT route, as on JSON-RPC calls: the route's method
 * must be listed, every contract it names must be listed, and a route that would read across every
 * contract (an owner's NFTs without `contractAddresses`) is refused to a contract-restricted key,
 * naming the parameter that would bound it.
 */
export function assertRouteAllowed(principal: Principal, request: FastifyRequest): void {
  const restrictions = principal.restrictions;
  if (restrictions === undefined || principal.session !== undefined) return;
  // Not `method`: Fastify's route config has its own (the HTTP method).
  const { methodName: method, contracts } = request.routeOptions.config;
  const methods = restrictions.methods ?? [];
  if (method !== undefined && methods.length > 0 && !methods.includes(method))
    throw refusedByRestriction('methods', `the method '${method}' is not listed`);
  if (contracts === undefined || (restrictions.contracts ?? []).length === 0) return;
  const read = contracts(request);
  if ('unnamed' in read) {
    const what = `the method '${method ?? request.routeOptions.url}' reads every contract`;
    throw refusedByRestriction(
      'contracts',
      read.unnamed === undefined
        ? `${what}, which a key with a contracts list cannot`
        : `${what} unless '${read.unnamed}' names them: name listed contracts`,
    );
  }
  assertContractsListed(principal, read.named);
}

/**
 * A key's `contracts` list against contracts a request names where the guard cannot see them (a
 * POST body: the guard runs before the body is read), as the guard checks those of the query and path.
 */
export function assertContractsListed(principal: Principal, named: readonly string[]): void {
  if (principal.restrictions === undefined || principal.session !== undefined) return;
  const listed = (principal.restrictions.contracts ?? []).map((address) => address.toLowerCase());
  if (listed.length === 0) return;
  // A malformed address is left to the route's own validation (400 naming the parameter).
  const unlisted = named.filter(isAddressText).find((address) => !listed.includes(address.toLowerCase()));
  if (unlisted !== undefined) throw refusedByRestriction('contracts', `the contract ${unlisted} is not listed`);
}

const isAddressText = (value: string) => /^0x[0-9a-fA-F]{40}$/.test(value);

/** Every value of a query parameter (`name` or `name[]`, repeated or not). */
function queryValues(request: FastifyRequest, name: string): string[] {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return [query[name], query[`${name}[]`]].flat().filter((value): value is string => typeof value === 'string');
}

/**
 * A route about the contract its query or path names as `name` (absent: nothing to check; the route
 * refuses it itself). A list of names: the same parameter under each of its accepted names.
 */
export function namedContract(name: string | readonly string[], from: 'query' | 'params' = 'query'): ContractsRule {
  const names = typeof name === 'string' ? [name] : name;
  const read = (request: FastifyRequest): RouteContracts => {
    if (from === 'params') {
      const values = names.map((one) => (request.params as Record<string, unknown>)[one]);
      return { named: values.filter((value): value is string => typeof value === 'string') };
    }
    return { named: names.flatMap((one) => queryValues(request, one)) };
  };
  return Object.assign(read, {
    published: { parameter: { name: names[0]!, in: from === 'params' ? 'path' : 'query' }, readsEveryWithout: false } as const,
  });
}

/** A route that reads every contract unless its `name` list parameter narrows it. */
export function contractFilterOf(name: string): ContractsRule {
  const read = (request: FastifyRequest): RouteContracts => {
    const named = queryValues(request, name);
    return named.length > 0 ? { named } : { unnamed: name };
  };
  return Object.assign(read, { published: { parameter: { name, in: 'query' }, readsEveryWithout: true } as const });
}

/** A route that reads across every contract, with no parameter to narrow it: closed to contract-restricted keys. */
export const everyContract: ContractsRule = Object.assign((): RouteContracts => ({ unnamed: undefined }), {
  published: { readsEveryWithout: true },
});
