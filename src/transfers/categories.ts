import { invalidRequest } from '../core/errors.ts';

/** What moved value: the transaction's own value, a call inside it (trace), or a token event. */
export const transferCategories = ['native', 'internal', 'erc20', 'erc721', 'erc1155'] as const;
export type TransferCategory = (typeof transferCategories)[number];

const known = new Set<string>(transferCategories);

/**
 * The `category` query parameter: comma-separated, repeated, or both (`category=erc20,erc721` equals
 * `category=erc20&category=erc721`); absent means every category. Order and duplicates do not matter.
 * @example parseCategories(['erc20,native']) // ['native', 'erc20']
 */
export function parseCategories(values: readonly string[] | undefined, param = 'category'): TransferCategory[] {
  if (values === undefined) return [...transferCategories];
  const named = values.flatMap((value) => value.split(',')).map((name) => name.trim());
  for (const name of named) {
    if (name === '') throw invalidRequest(param, `empty category (expected any of ${transferCategories.join(', ')})`);
    if (!known.has(name))
      throw invalidRequest(param, `unknown category '${name.slice(0, 40)}' (expected any of ${transferCategories.join(', ')})`);
  }
  return transferCategories.filter((category) => named.includes(category));
}
