import { anvilCall } from './anvil-rpc.ts';
import type { Measured } from './measure.ts';
import { fixed, formatTable } from './table.ts';

/** Issue 25: the miss path measured at the connection count where the proxy's own latency shows. */
export const liveChainConnections = 20;

/** The chain's height as its anvil reports it: read around the live-chain rows to show blocks were mined meanwhile. */
export async function blockHeight(url: string): Promise<number> {
  return Number.parseInt(String(await anvilCall(url, 'eth_blockNumber')), 16);
}

/** Blocks mined while the rows ran, and over how long: a live chain mines about one a second. */
export interface MinedDuring {
  blocks: number;
  seconds: number;
}

/**
 * The live-chain table (direct anvil and Blockyard's misses, `eth_getBalance` of fresh addresses at
 * `latest`, 20 connections then 1) and its targets: misses >= 0.60x of direct anvil's throughput, and
 * at most +0.25 ms at the median for one connection sending one request at a time.
 */
export function formatLiveChainReport(input: { direct: Measured; proxied: Measured; mined: MinedDuring }): string {
  const { direct, proxied, mined } = input;
  const header = [
    'target (live chain)',
    'req/s',
    'x anvil',
    `p50@${liveChainConnections} ms`,
    `p99@${liveChainConnections} ms`,
    'p50@1 ms',
    'p99@1 ms',
    'CPU us/req',
    'non-2xx',
  ];
  const rows = [direct, proxied].map((row) => [
    row.name,
    fixed(row.many.rps, 0),
    fixed(row.many.rps / direct.many.rps, 2),
    fixed(row.many.p50, 2),
    fixed(row.many.p99, 2),
    fixed(row.one.p50, 3),
    fixed(row.one.p99, 3),
    fixed(row.cpuUsPerRequest, 0),
    String(row.many.non2xx + row.one.non2xx),
  ]);
  const ratio = proxied.many.rps / direct.many.rps;
  const addedP50 = proxied.one.p50 - direct.one.p50;
  const addedP99 = proxied.one.p99 - direct.one.p99;
  const live = mined.blocks >= mined.seconds / 2;
  return [
    formatTable(header, rows),
    '',
    `live chain: ${mined.blocks} blocks mined during these rows' ${fixed(mined.seconds, 0)} s` +
      (live ? '' : ' (NOT a live chain: the devnet mined less than a block every 2 s, these rows are not meaningful)'),
    'targets (live chain):',
    `  cache-miss throughput >= 0.60x direct anvil at ${liveChainConnections} connections: ${fixed(ratio, 2)}x ${verdict(ratio >= 0.6)}`,
    `  added p50 at 1 connection <= 0.25 ms: ${fixed(addedP50, 3)} ms ${verdict(addedP50 <= 0.25)} (p99 +${fixed(addedP99, 3)} ms)`,
  ].join('\n');
}

function verdict(met: boolean): string {
  return met ? '(met)' : '(not met)';
}
