import type { RpcErrorObject } from './json-rpc.ts';

export type LogsWording = 'alchemy' | 'infura' | 'quicknode' | 'geth' | 'ankr' | 'generic';

interface LogsRangeRefusal {
  /** What is compared with `max`: the blocks in the range (to - from + 1) or the distance (to - from). */
  measure: 'blocks' | 'distance';
  code: number;
  /** The status a lone call gets (inside a batch every element is part of an HTTP 200). Default 200. */
  httpStatus?: number;
  error(max: number, from: number, to: number): Omit<RpcErrorObject, 'code'>;
}

const hex = (value: number) => `0x${value.toString(16)}`;
/** Infura writes the hex digits of its suggested range in upper case. */
const upperHex = (value: number) => `0x${value.toString(16).toUpperCase()}`;

/**
 * Each provider's own refusal of a too-wide eth_getLogs range, as captured from real answers:
 * - alchemy: github.com/BobTheBuidler/dank_mids/issues/772 (2025); the suggested range holds exactly `max` blocks.
 *   (Its paid-tier "Log response size exceeded…" text, ethers-io/ethers.js#4703, is about response size, not span.)
 * - infura: ethers-io/ethers.js#4703 and Infura's eth_getLogs docs, code -32005 with `data`; Infura's real
 *   trigger is 10,000 results, so the 10000 stays fixed and the suggested range carries `max`.
 * - quicknode: OffchainLabs/arbitrum-sdk#609 and eternalsafe/wallet#57 (HTTP 413, code -32614); ponder's
 *   quicknode test shows from..from+10000 served, so it measures the distance.
 * - geth: go-ethereum eth/filters/filter.go, `--rpc.rangelimit` (v1.17): `end-begin > limit`, invalid params.
 * - ankr: ponder-sh/ponder#1940 (2025) and ponder's ankr-tac test (from..from+10000 served).
 * - generic: BSC's geth fork and publicnode (AlphaWallet/alpha-wallet-android#2736), the common public-endpoint form.
 */
const refusals: Record<LogsWording, LogsRangeRefusal> = {
  alchemy: {
    measure: 'blocks',
    code: -32600,
    error: (max, from) => ({
      message: `You can make eth_getLogs requests with up to a ${max} block range. Based on your parameters, this block range should work: [${hex(from)}, ${hex(from + max - 1)}]`,
    }),
  },
  infura: {
    measure: 'blocks',
    code: -32005,
    error: (max, from) => ({
      message: `query returned more than 10000 results. Try with this block range [${upperHex(from)}, ${upperHex(from + max - 1)}].`,
      data: { from: upperHex(from), limit: 10000, to: upperHex(from + max - 1) },
    }),
  },
  quicknode: {
    measure: 'distance',
    code: -32614,
    httpStatus: 413,
    error: (max) => ({ message: `eth_getLogs is limited to a ${max.toLocaleString('en-US')} range` }),
  },
  geth: { measure: 'distance', code: -32602, error: (max) => ({ message: `exceed maximum block range ${max}` }) },
  ankr: { measure: 'distance', code: -32000, error: (max) => ({ message: `maximum [from, to] blocks distance: ${max}` }) },
  generic: { measure: 'distance', code: -32000, error: (max) => ({ message: `exceed maximum block range: ${max}` }) },
};

/** The provider's refusal of eth_getLogs over [from, to], or undefined when the range is within its cap. */
export function refuseWideLogsRange(
  cap: { max: number; wording: LogsWording },
  from: number,
  to: number,
): { error: RpcErrorObject; httpStatus?: number } | undefined {
  const refusal = refusals[cap.wording];
  const size = refusal.measure === 'blocks' ? to - from + 1 : to - from;
  if (size <= cap.max) return undefined;
  const error = { code: refusal.code, ...refusal.error(cap.max, from, to) };
  return refusal.httpStatus === undefined ? { error } : { error, httpStatus: refusal.httpStatus };
}
