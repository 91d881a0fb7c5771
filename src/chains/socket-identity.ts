import { type ExpectedIdentity, identityProblem } from './identity-check.ts';

/** What every WebSocket connection of a network must report of itself, and where a refusal is counted. */
export interface SocketIdentity {
  readonly expected: ExpectedIdentity;
  /** `chain/network`, for the log line. */
  readonly network: string;
  /** Counts one refusal of the upstream behind `wsUrl` (the pool's identity refusal metric). */
  refused(wsUrl: string): void;
}

/** The identity call a connection is asked first: `eth_chainId`, or Solana's `getGenesisHash`. */
export function identityMethod(expected: ExpectedIdentity): string {
  return expected.kind === 'evm' ? 'eth_chainId' : 'getGenesisHash';
}

/** Why the connection's answer is not the network's identity (undefined: it is). */
export function socketIdentityProblem(expected: ExpectedIdentity, answer: unknown): string | undefined {
  if (typeof answer !== 'string') return `${identityMethod(expected)} answered ${JSON.stringify(answer) ?? 'nothing'}`;
  return identityProblem(expected, answer);
}

/** The network's identity as the log line shows it (`0x7a69 (31337)`, a genesis hash, or "not known yet"). */
export function expectedText(expected: ExpectedIdentity): string {
  if (expected.kind === 'solana') return expected.genesisHash ?? 'not known yet';
  return expected.chainId === undefined ? 'not known yet' : `0x${expected.chainId.toString(16)} (${expected.chainId})`;
}
