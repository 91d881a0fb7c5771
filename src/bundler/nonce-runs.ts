import type { UserOperationRow } from '../db/tables/bundler.ts';

/** Each sender's lowest-nonce op on each nonce key, in the order the rows come. */
export function nextOfEachSender(rows: readonly UserOperationRow[]): UserOperationRow[] {
  return [...runsBySenderKey(rows).values()].map((run) => run[0]!);
}

/**
 * The ops of a bundle: for each sender and nonce key, its lowest pending nonce and the consecutive
 * ones after it (each was validated in the state the earlier ones leave), a run kept together in
 * nonce order, up to its first op that `eligible` refuses; runs in the order their first op came.
 */
export function queuedRunsInNonceOrder(
  rows: readonly UserOperationRow[],
  eligible: (row: UserOperationRow) => boolean = () => true,
): UserOperationRow[] {
  return [...runsBySenderKey(rows).values()].flatMap((run) => {
    if (!eligible(run[0]!)) return [];
    const consecutive = [run[0]!];
    for (const row of run.slice(1)) {
      if (BigInt(row.nonce) !== BigInt(consecutive[consecutive.length - 1]!.nonce) + 1n || !eligible(row)) break;
      consecutive.push(row);
    }
    return consecutive;
  });
}

/** Rows by sender and nonce key, each group in nonce order; groups in the order their first row comes. */
function runsBySenderKey(rows: readonly UserOperationRow[]): Map<string, UserOperationRow[]> {
  const groups = new Map<string, UserOperationRow[]>();
  for (const row of rows) {
    const key = `${row.sender.toLowerCase()}|${BigInt(row.nonce) >> 64n}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const group of groups.values()) group.sort((a, b) => (BigInt(a.nonce) < BigInt(b.nonce) ? -1 : 1));
  return groups;
}
