import type { Kysely } from 'kysely';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';

/**
 * The ops a bundle on its way should carry now: each op its sender replaced since the bundle was sent
 * (an op of the same sender and nonce with both fees 10% higher, admitted as a replacement) swapped
 * for the op that replaced it, in its place. Undefined when no op of the bundle was replaced.
 */
export async function swapReplacedOps(
  db: Kysely<Tables>,
  rows: readonly UserOperationRow[],
): Promise<UserOperationRow[] | undefined> {
  const replaced = await db
    .selectFrom('user_operations')
    .select('hash')
    .where(
      'hash',
      'in',
      rows.map((row) => row.hash),
    )
    .where('status', '=', 'replaced')
    .execute();
  if (replaced.length === 0) return undefined;
  const gone = new Set(replaced.map((row) => row.hash));
  const goneRows = rows.filter((row) => gone.has(row.hash));
  const replacements = await db
    .selectFrom('user_operations')
    .selectAll()
    .where('network', '=', goneRows[0]!.network)
    .where('entry_point', '=', goneRows[0]!.entry_point)
    .where('status', '=', 'pending')
    .where('sender', 'in', [...new Set(goneRows.map((row) => row.sender))])
    .execute();
  const replacementOf = (row: UserOperationRow) =>
    replacements.filter((next) => next.sender === row.sender && BigInt(next.nonce) === BigInt(row.nonce)).slice(0, 1);
  return rows.flatMap((row) => (gone.has(row.hash) ? replacementOf(row) : [row]));
}
