import type { Cluster } from './cluster.ts';
import { chainHead } from './infrastructure.ts';
import { type BlockyardNode, bothLeases, holdsLeases, type LeaseRole, metricsOf, metricValue } from './nodes.ts';
import { pollUntil, sleep } from './shell.ts';

/** The recovery bound of the issue: everything converges within 30 s of a fault's end. */
export const recoveryLimitS = 30;
/** The failover bound: the standby holds the leases within 5 s of the holder's death. */
export const failoverLimitS = 5;
/** How long a recovery is waited for before it is reported as not recovered. */
const recoveryWaitS = 60;

/** The worker holding every lease of `roles` now, if one does. */
export async function leaseHolder(
  cluster: Cluster,
  roles: readonly LeaseRole[] = bothLeases,
): Promise<BlockyardNode | undefined> {
  for (const node of [cluster.nodes.work1, cluster.nodes.work2]) if (await holdsLeases(node, roles)) return node;
  return undefined;
}

/** Seconds until `node` holds both leases, measured from `since` (undefined: not within 20 s). */
export async function secondsUntilHolder(node: BlockyardNode, since: number): Promise<number | undefined> {
  const held = await pollUntil(async () => ((await holdsLeases(node)) ? true : undefined), 20_000, 100);
  return held ? (Date.now() - since) / 1000 : undefined;
}

/**
 * The lease holder's indexed block is within 2 of anvil's head, and past the head when the fault
 * ended: a holder that has not noticed the fault yet (its gauge from before) does not pass.
 */
async function indexerAtHead(cluster: Cluster, headAtFaultEnd: number): Promise<boolean> {
  const holder = await leaseHolder(cluster, ['indexer']);
  if (!holder) return false;
  const metrics = await metricsOf(holder);
  const indexed = metrics ? metricValue(metrics, 'blockyard_indexer_indexed_block') : undefined;
  if (indexed === undefined || indexed <= headAtFaultEnd) return false;
  return (await chainHead()) - indexed <= 2;
}

/** What held back convergence at the last look (for the report when it never came). */
export interface Recovery {
  seconds: number | undefined;
  lastState: string;
}

/** Convergence must hold this long in a row: a transfer younger than 3 s is not yet "undelivered". */
const stableMs = 3_000;

/**
 * Seconds from now until everything converged: the start of the first `stableMs` streak in which
 * the load's recent requests all succeeded, no transfer is undelivered and the indexer is at the head,
 * and no earlier than the first look at which no UserOperation was pending (every op accepted until
 * then has landed; ops sent later are new work: under a steady load one is often in flight). Undefined
 * when that takes over a minute.
 */
export async function measureRecovery(cluster: Cluster): Promise<Recovery> {
  const started = Date.now();
  const headAtFaultEnd = await chainHead();
  let lastState = '';
  let streakFrom: number | undefined;
  let opsSettledAt: number | undefined;
  while (Date.now() - started < recoveryWaitS * 1000) {
    let ok = false;
    try {
      const health = await (cluster.load?.health() ?? Promise.resolve({ recentOk: true, undelivered: 0, opsPending: 0 }));
      const atHead = await indexerAtHead(cluster, headAtFaultEnd);
      lastState = `recentOk=${health.recentOk} undelivered=${health.undelivered} opsPending=${health.opsPending} indexerAtHead=${atHead}`;
      if (health.opsPending === 0) opsSettledAt ??= Date.now();
      ok = health.recentOk && health.undelivered === 0 && atHead;
    } catch (error) {
      lastState = `error: ${(error as Error).message}`;
    }
    if (!ok) streakFrom = undefined;
    else {
      streakFrom ??= Date.now();
      if (Date.now() - streakFrom >= stableMs && opsSettledAt !== undefined) {
        return { seconds: (Math.max(streakFrom, opsSettledAt) - started) / 1000, lastState };
      }
    }
    await sleep(500);
  }
  return { seconds: undefined, lastState: `${lastState}${opsSettledAt === undefined ? ' (ops never all landed)' : ''}` };
}
