import type { PooledUpstream } from './pooled-upstream.ts';
import { answerError } from './retryable.ts';
import type { UpstreamMetrics } from './upstream-metrics.ts';

/** What every upstream of a network must report about itself. */
/** An undefined id or hash is set by the first upstream that answers, and the others must match it. */
export type ExpectedIdentity = { kind: 'evm'; chainId: number | undefined } | { kind: 'solana'; genesisHash: string | undefined };

const chainIdBody = '{"jsonrpc":"2.0","id":"identity","method":"eth_chainId","params":[]}';
const genesisBody = '{"jsonrpc":"2.0","id":"identity","method":"getGenesisHash"}';

/**
 * Asks the upstream which chain it serves (`eth_chainId`; Solana `getGenesisHash`) and records the
 * outcome: verified, refused (another chain: out of the pool, one warn line, a metric), or still
 * unverified when it did not answer (it is asked again at the next head poll).
 */
export async function checkIdentity(
  upstream: PooledUpstream,
  expected: ExpectedIdentity,
  metrics: UpstreamMetrics,
  labels: { chain: string; network: string },
): Promise<void> {
  let found: string;
  try {
    const method = expected.kind === 'evm' ? 'eth_chainId' : 'getGenesisHash';
    found = identityIn(await upstream.send(expected.kind === 'evm' ? chainIdBody : genesisBody, 1, upstream.costOf(method)));
  } catch (error) {
    upstream.identity = upstream.identity === 'refused' ? 'refused' : 'unverified';
    if (upstream.identity === 'unverified') upstream.identityProblem = `chain id check failed: ${(error as Error).message}`;
    upstream.condition.refresh();
    return;
  }
  const problem = identityProblem(expected, found);
  if (problem === undefined) {
    upstream.identity = 'verified';
    upstream.identityProblem = undefined;
  } else {
    if (upstream.identity !== 'refused') metrics.identityRefusals.inc({ ...labels, upstream: upstream.label });
    upstream.identity = 'refused';
    upstream.identityProblem = problem;
  }
  upstream.condition.refresh();
}

function identityIn(text: string): string {
  const error = answerError(text);
  if (error !== undefined) throw new Error(`the node answered ${error.message || `error ${error.code}`}`);
  const { result } = JSON.parse(text) as { result?: unknown };
  if (typeof result !== 'string') throw new Error('the node answered no chain id');
  return result;
}

/** Why `found` is not the network's identity, or undefined when it is. */
export function identityProblem(expected: ExpectedIdentity, found: string): string | undefined {
  if (expected.kind === 'solana') {
    expected.genesisHash ??= found;
    return found === expected.genesisHash ? undefined : `getGenesisHash answered ${found}, expected ${expected.genesisHash}`;
  }
  const chainId = /^0x[0-9a-fA-F]{1,16}$/.test(found) ? Number.parseInt(found, 16) : Number.NaN;
  if (!Number.isNaN(chainId)) expected.chainId ??= chainId;
  if (chainId === expected.chainId || expected.chainId === undefined) return undefined;
  const shown = Number.isNaN(chainId) ? JSON.stringify(found) : `0x${chainId.toString(16)} (${chainId})`;
  return `eth_chainId answered ${shown}, expected 0x${expected.chainId.toString(16)} (${expected.chainId})`;
}
