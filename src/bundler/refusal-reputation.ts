import type { Address } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import { reputationAfterRefusal } from './bundle-blame.ts';
import type { BundleContext } from './bundle-context.ts';
import { meetsStake, readStake } from './entity-stake.ts';

/**
 * Applies ERC-7562's reputation rules to an op the EntryPoint refused while its bundle was built
 * (bundle-blame.ts): the stakes of its sender and factory are read from the EntryPoint, then "seen"
 * counts are taken back or the entity at fault is banned. A failure here is logged: the op is dropped
 * either way.
 */
export async function applyRefusalReputation(
  ctx: Pick<BundleContext, 'client' | 'network' | 'name' | 'reputation' | 'logger'>,
  row: UserOperationRow,
  reason: string,
  refusedAlone: boolean,
): Promise<void> {
  try {
    const entryPoint = row.entry_point as Address;
    const stakedAt = async (address: string | null) =>
      address !== null && meetsStake(ctx.network.config.bundler, await readStake(ctx.client, entryPoint, address as Address));
    const [sender, factory] = await Promise.all([stakedAt(row.sender), stakedAt(row.factory)]);
    const change = reputationAfterRefusal({
      reason,
      refusedAlone,
      sender: row.sender.toLowerCase(),
      factory: row.factory,
      paymaster: row.paymaster,
      staked: { sender, factory },
      safeMode: ctx.network.config.bundler.safeMode,
    });
    await ctx.reputation.unsee(ctx.name, change.unsee);
    if (change.crashed) {
      await ctx.reputation.crashed(ctx.name, change.crashed);
      ctx.logger.warn(
        { network: ctx.name, entity: change.crashed, op: row.hash, reason },
        'an op passed validation but broke its bundle: the entity at fault is banned (ERC-7562 reputation)',
      );
    }
  } catch (error) {
    ctx.logger.warn({ err: error, network: ctx.name, op: row.hash }, 'reputation not updated for a refused op');
  }
}
