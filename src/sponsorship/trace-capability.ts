import { type PublicClient, zeroAddress } from 'viem';
import { shortMessage } from '../bundler/simulation.ts';
import type { Network } from '../chains/registry.ts';
import { UpstreamError } from '../core/upstream-error.ts';

/**
 * How long what a network's node said about tracing is believed: a node that traces is not asked
 * again for 10 minutes; one that did not is asked again after a minute (an upstream back from an
 * outage, a fallback that took over). Each sponsorship traces anyway and records what it found.
 */
const tracedForMs = 10 * 60_000;
const untraceableForMs = 60_000;

const knownByNetwork = new WeakMap<Network, { answer: Promise<string>; until: number }>();

const nameOf = (network: Network) => `${network.config.chain}/${network.config.network}`;

/** Words nodes use when they have no such method or tracer (geth, erigon, reth, anvil, providers). */
const unsupportedWords = /not (found|supported|available)|does not exist|unknown method|unsupported|not implemented/i;

/**
 * Why the network's node cannot trace, when `error` (from a `debug_traceCall` with the callTracer)
 * says it has no such method or tracer, or that no upstream serves it (`methods.deny`); undefined for
 * any other failure (a timeout, an outage: the op may be tried again).
 */
export function untraceableReason(network: Network, error: unknown): string | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof UpstreamError && cause.reason === 'no_capable_upstream')
      return `no upstream of ${nameOf(network)} serves debug_traceCall (its methods setting)`;
    const code = (cause as { code?: unknown }).code;
    if (code === -32601 || unsupportedWords.test(cause.message))
      return `the node of ${nameOf(network)} does not trace calls (debug_traceCall with the callTracer: ${shortMessage(error)})`;
  }
  return undefined;
}

/** Records what a trace on the network found: `traced`, or `unavailable: …`. */
export function noteCallTracing(network: Network, answer: string): void {
  knownByNetwork.set(network, {
    answer: Promise.resolve(answer),
    until: Date.now() + (answer === 'traced' ? tracedForMs : untraceableForMs),
  });
}

/** The policy answer's `call_rules_enforcement` for a network's node that cannot trace. */
export const unavailableEnforcement = (reason: string) => `unavailable: ${reason}; ops under this policy are refused`;

/**
 * What a policy with call rules on `network` gets, as its answer's `call_rules_enforcement` says:
 * `traced` (every call of an op's execution is checked), `unavailable: …` (the node cannot trace:
 * such ops are refused), or `unknown: …` (the node could not be asked now; not remembered). One
 * trace of an empty call asks the node, at most once per period above.
 */
export function callRulesEnforcement(network: Network, client: PublicClient): Promise<string> {
  const known = knownByNetwork.get(network);
  if (known && known.until > Date.now()) return known.answer;
  const answer = probe(network, client);
  knownByNetwork.set(network, { answer, until: Date.now() + untraceableForMs });
  return answer;
}

async function probe(network: Network, client: PublicClient): Promise<string> {
  try {
    await client.request({
      method: 'debug_traceCall' as never,
      params: [{ to: zeroAddress, data: '0x' }, 'latest', { tracer: 'callTracer' }] as never,
    });
    noteCallTracing(network, 'traced');
    return 'traced';
  } catch (error) {
    const reason = untraceableReason(network, error);
    if (reason !== undefined) {
      noteCallTracing(network, unavailableEnforcement(reason));
      return unavailableEnforcement(reason);
    }
    knownByNetwork.delete(network);
    return `unknown: the node of ${nameOf(network)} could not be asked whether it traces (${shortMessage(error)}); each op is traced when it is sponsored`;
  }
}
