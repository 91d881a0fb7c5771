import type { Operation } from '../../fuzz/support/operations.ts';
import { anvilAccount } from './matrix-fixtures.ts';

/** A contract no key of the matrix lists (the contracts key lists only `anvilAccount`). */
export const unlistedContract = '0x00000000000000000000000000000000000000b2';

/** The keys a case is sent with: restricted by `methods` (two complementary halves), `contracts`, or environment. */
export type CaseKey = 'methodsEven' | 'methodsOdd' | 'contracts' | 'unrestricted' | 'test' | 'live';

/** One request of an operation and what it must get: a 403 whose message matches, or anything but 403. */
export interface RestrictionCase {
  readonly label: string;
  readonly operation: Operation;
  readonly key: CaseKey;
  /** Path parameters replacing the matrix's (`contract`, `network`). */
  readonly values?: Record<string, string>;
  /** Query entries sent as they are, besides the defaults of the parameters they do not name. */
  readonly query?: [string, string][];
  readonly refused?: RegExp;
}

/**
 * Query values that let a request reach the check under test (the NFT v3 routes' `owner`, `tokenId`...;
 * a wallet's `network` is read only beside its `chain`).
 */
const queryDefaults: Record<string, string> = {
  chain: 'ethereum',
  network: 'devnet',
  owner: anvilAccount,
  contractAddress: anvilAccount,
  tokenId: '1',
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The query string of a case: the operation's query parameters with a default value, unless the case
 * names the parameter itself (also as `name[]`), then the case's own entries.
 */
export function queryFor(operation: Operation, c: Pick<RestrictionCase, 'values' | 'query'> = {}): string {
  const named = new Set((c.query ?? []).map(([name]) => name.replace(/\[\]$/, '')));
  const entries: [string, string][] = [];
  for (const parameter of operation.parameters) {
    const value = c.values?.[parameter.name] ?? queryDefaults[parameter.name];
    if (parameter.in === 'query' && value !== undefined && !named.has(parameter.name)) entries.push([parameter.name, value]);
  }
  entries.push(...(c.query ?? []));
  return entries.length === 0 ? '' : `?${entries.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`;
}

/** The method names routes publish (`x-method-name`), split in two halves: each route's is listed by one key only. */
export function methodHalves(operations: Operation[]): { even: string[]; odd: string[] } {
  const names = [...new Set(operations.flatMap((o) => (o.methodName ? [o.methodName] : [])))].sort();
  return { even: names.filter((_, i) => i % 2 === 0), odd: names.filter((_, i) => i % 2 === 1) };
}

/** Every route with a method name: refused to the key whose `methods` lacks it (naming it), served to the key listing it. */
export function methodCases(operations: Operation[]): RestrictionCase[] {
  const { even } = methodHalves(operations);
  return operations.flatMap((operation) => {
    const name = operation.methodName;
    if (name === undefined) return [];
    const [listing, lacking]: [CaseKey, CaseKey] = even.includes(name)
      ? ['methodsEven', 'methodsOdd']
      : ['methodsOdd', 'methodsEven'];
    return [
      { label: `'${name}' not listed`, operation, key: lacking, refused: methodRefusal(name) },
      { label: `'${name}' listed`, operation, key: listing },
    ];
  });
}

const methodRefusal = (name: string) =>
  new RegExp(`^refused by this API key's restrictions\\.methods: the method '${escapeRegExp(name)}' is not listed$`);
const contractRefusal = (contract: string) =>
  new RegExp(`^refused by this API key's restrictions\\.contracts: the contract ${contract} is not listed$`);

/**
 * Every route with a contracts rule, crossed with the contracts key: an unlisted contract is refused
 * naming it (also as `name[]` and beside a listed one), a listed one served, an unrestricted key
 * served either; a route that reads every contract without the parameter (or at all) is refused.
 */
export function contractCases(operations: Operation[]): RestrictionCase[] {
  return operations.flatMap((operation): RestrictionCase[] => {
    const rule = operation.contracts;
    if (rule === undefined) return [];
    const readsEvery = new RegExp(
      `^refused by this API key's restrictions\\.contracts: the method '${escapeRegExp(operation.methodName ?? '')}' reads every contract`,
    );
    const parameter = rule.parameter;
    if (parameter === undefined)
      return [
        { label: 'reads every contract', operation, key: 'contracts', refused: readsEvery },
        { label: 'reads every contract, unrestricted key', operation, key: 'unrestricted' },
      ];
    const name = parameter.name;
    const naming = (...contracts: string[]) =>
      parameter.in === 'path'
        ? { values: { [name]: contracts[0]! } }
        : { query: contracts.map((contract): [string, string] => [name, contract]) };
    const cases: RestrictionCase[] = [
      {
        label: `${name} unlisted`,
        operation,
        key: 'contracts',
        ...naming(unlistedContract),
        refused: contractRefusal(unlistedContract),
      },
      { label: `${name} listed`, operation, key: 'contracts', ...naming(anvilAccount) },
      { label: `${name} unlisted, unrestricted key`, operation, key: 'unrestricted', ...naming(unlistedContract) },
    ];
    if (parameter.in === 'query')
      cases.push(
        {
          label: `${name}[] unlisted`,
          operation,
          key: 'contracts',
          query: [[`${name}[]`, unlistedContract]],
          refused: contractRefusal(unlistedContract),
        },
        {
          label: `${name} listed and unlisted`,
          operation,
          key: 'contracts',
          ...naming(anvilAccount, unlistedContract),
          refused: contractRefusal(unlistedContract),
        },
      );
    if (rule.readsEveryWithout)
      cases.push({
        label: `no ${name}`,
        operation,
        key: 'contracts',
        query: [],
        refused: new RegExp(`${readsEvery.source} unless '${name}' names them`),
      });
    return cases;
  });
}

/** Every /v1 operation naming a network (path or query): a test key is refused a mainnet, a live key a testnet. */
export function environmentCases(operations: Operation[]): RestrictionCase[] {
  return operations.flatMap((operation): RestrictionCase[] => {
    if (!operation.parameters.some((p) => p.name === 'network')) return [];
    return [
      {
        label: 'test key, mainnet',
        operation,
        key: 'test',
        values: { network: 'mainnet' },
        refused: /^test keys \(svc_test_\) cannot use ethereum\/mainnet/,
      },
      {
        label: 'live key, devnet',
        operation,
        key: 'live',
        values: { network: 'devnet' },
        refused: /^live keys \(svc_live_\) cannot use ethereum\/devnet/,
      },
    ];
  });
}
