import { sql } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleContext } from './bundle-context.ts';
import { markFailed } from './bundle-status.ts';
import { type CodeHashes, changedCode, currentCodeHashes } from './code-hashes.ts';
import { delegationOverride } from './eip7702-delegation.ts';
import { readOnChainNonce } from './entry-points.ts';
import { opOfRow } from './handle-ops-call.ts';
import { nextOfEachSender } from './nonce-runs.ts';
import { BundlerRpcError, signatureFailure } from './rpc-errors.ts';
import { simulateValidation } from './simulation.ts';

/**
 * After each new block, the next op of each sender that has waited a block is checked again: an op
 * whose nonce was used meanwhile (by another bundler, or a replaced op), whose validation's code
 * changed (COD-010) or that no longer validates (its signature, prefund or time range) leaves the
 * mempool with the reason, instead of waiting. `waitingOps` reads the mempool's ops no bundle holds.
 */
export function createMempoolRevalidation(ctx: BundleContext, waitingOps: (limit: number) => Promise<UserOperationRow[]>) {
  const { client, db } = ctx;
  let revalidatedAt = -1n;
  return async function revalidate(): Promise<void> {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    if (head === revalidatedAt) return;
    revalidatedAt = head;
    const waiting = await waitingOps(200);
    if (waiting.length === 0) return;
    // created_at is the database's time (another process wrote it): compared with the database's clock.
    const { rows: clock } = await sql<{ now_ms: number }>`select (extract(epoch from now()) * 1000)::float8 as now_ms`.execute(
      db,
    );
    const before = clock[0]!.now_ms - Math.max(1_000, ctx.network.config.blockTimeS * 1_000);
    const waited = waiting.filter((row) => new Date(row.created_at).getTime() <= before);
    // An op checked at send is looked at again once it has waited a block.
    if (waited.length < waiting.length) revalidatedAt = -1n;
    const next = nextOfEachSender(waited);
    // An op's time range is checked on chain against block timestamps: so is it here, not this host's clock.
    let chainNowS: number | undefined;
    const chainNow = async () => {
      chainNowS ??= Number((await client.getBlock({ blockTag: 'latest' })).timestamp);
      return chainNowS;
    };
    // ERC-7562 COD-010: the code each op's first validation ran must still be there, in one call for all.
    const current = await currentCodeHashes(client, [...new Set(next.flatMap((row) => Object.keys(row.code_hashes ?? {})))]);
    for (const row of next) {
      const changed = row.code_hashes ? changedCode(row.code_hashes as CodeHashes, current) : undefined;
      const reason = changed
        ? `ERC-7562 COD-010: the code at ${changed} changed since the operation was validated`
        : await noLongerValid(client, row, chainNow);
      if (reason) await markFailed(ctx, row, reason);
    }
  };
}

/**
 * Why a waiting op can no longer be bundled (its nonce used, its signature or time range no longer
 * valid, its validation failing), or undefined while it still can (or waits for an earlier op).
 */
async function noLongerValid(client: PublicClient, row: UserOperationRow, chainNow: () => Promise<number>) {
  const op = opOfRow(row);
  const onChain = await readOnChainNonce(client, row.entry_point as Address, op.sender, op.nonce >> 64n);
  if (op.nonce < onChain)
    return `nonce ${op.nonce} was used on chain (by this operation or another of this sender, sent by another bundler)`;
  if (op.nonce > onChain) return undefined; // waits for an earlier op not in this mempool
  try {
    const outcome = await simulateValidation(
      client,
      row.entry_point_version,
      row.entry_point as Address,
      op,
      delegationOverride(op),
    );
    if (outcome.sigFailed) return `no longer valid: ${signatureFailure(outcome.sigFailedBy)}`;
    if (outcome.validUntil < (await chainNow())) return `expired: valid until ${outcome.validUntil} (Unix seconds)`;
    return undefined;
  } catch (error) {
    if (error instanceof BundlerRpcError) return `no longer valid: ${error.message}`;
    throw error;
  }
}
