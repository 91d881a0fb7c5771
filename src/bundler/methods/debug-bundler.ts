import { type Address, isAddress, toHex } from 'viem';
import { networkKey } from '../../chains/network-key.ts';
import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { meetsStake, readStake } from '../entity-stake.ts';
import { resolveEntryPoint } from '../entry-points.ts';
import { BundlerRpcError, bundlerErrorCodes, invalidParams } from '../rpc-errors.ts';

/** ERC-7769's debug_bundler_* methods: only on networks with dev_methods (devnets). */
export async function debugBundlerMethod(
  ctx: BundlerContext,
  network: Network,
  method: string,
  params: unknown[],
): Promise<unknown> {
  if (!network.config.devMethods)
    throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `${method} is a devnet method (dev_methods: true)`);
  const name = networkKey(network);
  switch (method) {
    case 'debug_bundler_clearState':
      await clearMempool(ctx, name);
      await ctx.reputation.clear(name);
      return 'ok';
    case 'debug_bundler_clearMempool':
      await clearMempool(ctx, name);
      return 'ok';
    case 'debug_bundler_clearReputation':
      await ctx.reputation.clear(name);
      return 'ok';
    case 'debug_bundler_getStakeStatus':
      return stakeStatus(ctx, network, params);
    case 'debug_bundler_dumpReputation':
      resolveEntryPoint(network, params[0], 'first');
      return (await ctx.reputation.list(name)).map((entry) => ({
        address: entry.address,
        opsSeen: toHex(entry.opsSeen),
        opsIncluded: toHex(entry.opsIncluded),
        // What is enforced: without safe mode, nobody is throttled or banned.
        status: network.config.bundler.safeMode ? entry.status : 'ok',
      }));
    case 'debug_bundler_setReputation':
      resolveEntryPoint(network, params[1]);
      await ctx.reputation.set(name, parseReputationEntries(params[0]));
      return 'ok';
    case 'debug_bundler_dumpMempool': {
      const entryPoint = resolveEntryPoint(network, params[0], 'first');
      const rows = await ctx.db
        .selectFrom('user_operations')
        .select('op')
        .where('network', '=', name)
        .where('entry_point', '=', entryPoint.address)
        .where('status', '=', 'pending')
        .orderBy('created_at')
        .execute();
      return rows.map((row) => row.op);
    }
    case 'debug_bundler_sendBundleNow':
      return (await loopHere(ctx, name).bundleNow()) ?? 'ok';
    case 'debug_bundler_setBundlingMode': {
      if (params[0] !== 'auto' && params[0] !== 'manual') throw invalidParams('the mode is "auto" or "manual"');
      loopHere(ctx, name).setMode(params[0]);
      return 'ok';
    }
    default:
      throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `the bundler has no method '${method}'`);
  }
}

function clearMempool(ctx: Pick<BundlerContext, 'db'>, name: string) {
  return ctx.db.deleteFrom('user_operations').where('network', '=', name).where('status', '=', 'pending').execute();
}

/** The entity's stake in the EntryPoint, and whether this bundler counts it as staked (ERC-7562 SREP-010). */
async function stakeStatus(ctx: Pick<BundlerContext, 'clientOf'>, network: Network, params: unknown[]) {
  const address = params[0];
  if (typeof address !== 'string' || !isAddress(address, { strict: false }))
    throw invalidParams('the first parameter must be the address of an account, factory or paymaster');
  const entryPoint = resolveEntryPoint(network, params[1]);
  const info = await readStake(ctx.clientOf(network), entryPoint.address, address as Address);
  return {
    stakeInfo: { addr: address, stake: info.stake.toString(), unstakeDelaySec: info.unstakeDelaySec.toString() },
    isStaked: meetsStake(network.config.bundler, info),
  };
}

function loopHere(ctx: Pick<BundlerContext, 'loopOf'>, name: string) {
  const loop = ctx.loopOf(name);
  if (!loop) throw new BundlerRpcError(bundlerErrorCodes.internal, 'this process does not run the bundler role');
  return loop;
}

/** debug_bundler_setReputation's list of {address, opsSeen, opsIncluded}, each count a number or a quantity. */
function parseReputationEntries(input: unknown): { address: string; opsSeen: number; opsIncluded: number }[] {
  if (!Array.isArray(input)) throw invalidParams('the first parameter is a list of {address, opsSeen, opsIncluded}');
  return (input as { address?: unknown; opsSeen?: unknown; opsIncluded?: unknown }[]).map((entry, index) => {
    if (typeof entry?.address !== 'string' || !isAddress(entry.address, { strict: false }))
      throw invalidParams(`entry ${index}: address must be a 0x address`);
    const count = (value: unknown, field: string) => {
      const parsed =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^0x[0-9a-fA-F]+$|^\d+$/.test(value)
            ? Number(value)
            : Number.NaN;
      if (!Number.isSafeInteger(parsed) || parsed < 0)
        throw invalidParams(`entry ${index}: ${field} must be a non-negative integer (or 0x quantity)`);
      return parsed;
    };
    return {
      address: entry.address,
      opsSeen: count(entry.opsSeen, 'opsSeen'),
      opsIncluded: count(entry.opsIncluded, 'opsIncluded'),
    };
  });
}
