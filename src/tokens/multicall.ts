import { BaseError, ExecutionRevertedError, type PublicClient, RawContractError } from 'viem';
import { multicall3Address } from '../chains/public-client.ts';
import { mapBounded } from '../core/map-bounded.ts';
import { decodeAggregate3, encodeAggregate3 } from './aggregate3-codec.ts';
import type { RawCall, RawResult } from './raw-call.ts';

/** Calls per eth_call: 500 balanceOf reads cost a few million gas, well under the usual 30-50M eth_call cap. */
export const callsPerChunk = 500;
/** eth_calls in flight at once for one request, so one huge list cannot monopolise the upstream pool. */
const chunkConcurrency = 4;

/**
 * Runs every call at `blockNumber` through Multicall3's `aggregate3` (failures allowed), in chunks.
 * Where Multicall3 has no code at that block, each call is sent on its own instead. Upstream
 * failures throw; a reverted call is a `success: false` result.
 */
export async function multicallRaw(client: PublicClient, calls: readonly RawCall[], blockNumber: bigint): Promise<RawResult[]> {
  const chunks: RawCall[][] = [];
  for (let start = 0; start < calls.length; start += callsPerChunk) chunks.push(calls.slice(start, start + callsPerChunk));
  const answers = await mapBounded(chunks, chunkConcurrency, (chunk) => aggregate(client, chunk, blockNumber));
  return answers.flat();
}

async function aggregate(client: PublicClient, calls: readonly RawCall[], blockNumber: bigint): Promise<RawResult[]> {
  const answer = await client.call({ to: multicall3Address, data: encodeAggregate3(calls), blockNumber });
  if (!answer.data || answer.data === '0x') {
    return mapBounded(calls, chunkConcurrency, (call) => callAlone(client, call, blockNumber));
  }
  return decodeAggregate3(answer.data);
}

async function callAlone(client: PublicClient, call: RawCall, blockNumber: bigint): Promise<RawResult> {
  try {
    const answer = await client.call({ to: call.target, data: call.callData, blockNumber });
    return { success: true, returnData: answer.data ?? '0x' };
  } catch (error) {
    if (isRevert(error)) return { success: false, returnData: '0x' };
    throw error;
  }
}

/** A call the node executed and that reverted, as opposed to an upstream failure. */
export function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (inner) =>
        inner instanceof ExecutionRevertedError ||
        inner instanceof RawContractError ||
        (inner as { code?: unknown }).code === 3 ||
        /revert/i.test((inner as Error).message ?? ''),
    ),
  );
}
