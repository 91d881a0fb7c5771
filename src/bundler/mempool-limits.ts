import type { Kysely } from 'kysely';
import type { BundlerConfig } from '../config/chain-settings.ts';
import type { Tables } from '../db/tables.ts';
import { reputationParams } from './reputation.ts';
import type { createReputationStore, EntityReputation } from './reputation-store.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

type Entities = { factory: string | null; paymaster: string | null };

/**
 * The op's factory's and paymaster's reputation, read in the background (awaited by
 * checkMempoolLimits, unless the op is refused first). Reputation (ERC-7562) throttles and bans only
 * in safe mode: without it no entity is read, so none is refused for it.
 */
export function readStandings(
  reputation: ReturnType<typeof createReputationStore>,
  name: string,
  entities: Entities,
  safeMode: boolean,
): Map<string, Promise<EntityReputation>> {
  return new Map(
    [entities.factory, entities.paymaster]
      .filter((address): address is string => address !== null && safeMode)
      .map((address) => {
        const standing = reputation.get(name, address);
        standing.catch(() => undefined); // awaited later, unless the op is refused first
        return [address, standing] as const;
      }),
  );
}

/**
 * The most ops one sender may have in the mempool: ERC-7562's 4 for an unstaked sender in safe mode,
 * else (and for a staked sender, whose reputation limits it instead) the network's setting. Before
 * validation the stake is not known: `senderStaked` undefined gives the larger of the two.
 */
export function senderLimitOf(
  bundler: Pick<BundlerConfig, 'safeMode' | 'maxPendingOpsPerSender'>,
  senderStaked?: boolean,
): number {
  if (!bundler.safeMode || senderStaked === true) return bundler.maxPendingOpsPerSender;
  if (senderStaked === false) return reputationParams.sameSenderMempoolCount;
  return Math.max(reputationParams.sameSenderMempoolCount, bundler.maxPendingOpsPerSender);
}

/** -32504 for a sender that already has `pending` ops in the mempool, naming the count and the limit. */
export function senderLimitError(sender: string, pending: number, limit: number, safeMode: boolean): BundlerRpcError {
  const why =
    safeMode && limit === reputationParams.sameSenderMempoolCount
      ? `ERC-7562 allows ${limit} for an unstaked sender`
      : `this bundler allows ${limit} per sender: bundler.max_pending_ops_per_sender`;
  return new BundlerRpcError(
    bundlerErrorCodes.throttled,
    `the sender ${sender} already has ${pending} operations pending; wait for one to land (${why})`,
    { sender, pending, limit },
  );
}

/**
 * Mempool limits, checked before validation on what the sender's ops were then (the admission counts
 * them again under a lock on the sender): a sender holds `senderLimit` pending ops at most (a
 * replacement adds none); a throttled factory or paymaster a few, a banned one none.
 */
export async function checkMempoolLimits(
  db: Kysely<Tables>,
  check: {
    name: string;
    sender: string;
    entities: Entities;
    standings: Map<string, Promise<EntityReputation>>;
    queued: number;
    replacing: boolean;
    senderLimit: number;
    safeMode: boolean;
  },
): Promise<void> {
  if (!check.replacing && check.queued >= check.senderLimit)
    throw senderLimitError(check.sender, check.queued, check.senderLimit, check.safeMode);
  for (const [role, address] of Object.entries(check.entities) as [string, string | null][]) {
    const standingOf = address === null ? undefined : check.standings.get(address);
    if (address === null || standingOf === undefined) continue;
    const standing = await standingOf;
    if (standing.status === 'banned') {
      throw new BundlerRpcError(
        bundlerErrorCodes.throttled,
        `the ${role} ${address} is banned (ERC-7562 reputation: seen in ${standing.opsSeen} operations, ${standing.opsIncluded} included)`,
      );
    }
    if (standing.status === 'throttled') {
      const pendingWith = await db
        .selectFrom('user_operations')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('network', '=', check.name)
        .where('status', '=', 'pending')
        .where(role === 'factory' ? 'factory' : 'paymaster', '=', address)
        .executeTakeFirstOrThrow();
      if (Number(pendingWith.n) >= reputationParams.throttledEntityMempoolCount) {
        throw new BundlerRpcError(
          bundlerErrorCodes.throttled,
          `the ${role} ${address} is throttled (ERC-7562 reputation) and already has ${pendingWith.n} operations pending`,
        );
      }
    }
  }
}
