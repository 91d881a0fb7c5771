// The balances rows: Blockyard's GET /v1/tokens/{chain}/balances/{address} for an address holding N tokens,
// against one Multicall3 aggregate3 eth_call of the same N balanceOf straight to anvil.
import { type Address, decodeFunctionResult, encodeFunctionData, erc20Abi, multicall3Abi } from 'viem';
import { multicall3Address } from '../../src/chains/public-client.ts';
import { monotonicUs } from './indexer-backfill.ts';
import { runSequential, type SequentialRequest, type SequentialResult } from './indexer-latency.ts';

export interface BalancesRun {
  multicall: SequentialResult;
  /** Absent when the route is not there (404 on the first request): `unavailable` says why. */
  blockyard?: SequentialResult;
  /** Monotonic µs around the measured Blockyard requests (for the CPU profile). */
  window?: { fromUs: number; toUs: number };
  unavailable?: string;
}

export async function measureBalances(options: {
  blockyardUrl: string;
  apiKey: string;
  anvilUrl: string;
  holder: Address;
  tokens: readonly Address[];
  block: number;
  warmupS: number;
  durationS: number;
  log: (line: string) => void;
}): Promise<BalancesRun> {
  const { tokens, log } = options;
  const multicall = multicallRequest(options.anvilUrl, options.holder, tokens, options.block);
  const balances: SequentialRequest = {
    url: `${options.blockyardUrl}/v1/tokens/ethereum/balances/${options.holder}?limit=${tokens.length}`,
    method: 'GET',
    headers: { 'x-api-key': options.apiKey },
    check: (body) => {
      const answer = JSON.parse(body) as { tokens?: unknown[] };
      if (answer.tokens?.length !== tokens.length) {
        throw new Error(`balances listed ${answer.tokens?.length ?? 'no'} tokens instead of ${tokens.length}`);
      }
    },
  };

  log(`multicall3 aggregate3 of ${tokens.length} balanceOf: warm-up ${options.warmupS} s, then ${options.durationS} s`);
  await runSequential(multicall, options.warmupS);
  const direct = await runSequential(multicall, options.durationS);

  const probe = await fetch(balances.url, { headers: balances.headers, signal: AbortSignal.timeout(30_000) });
  const probeBody = await probe.text();
  if (probe.status === 404) return { multicall: direct, unavailable: `answered 404: ${probeBody.slice(0, 160)}` };
  if (probe.status !== 200) throw new Error(`GET ${balances.url} answered ${probe.status}: ${probeBody.slice(0, 300)}`);
  balances.check?.(probeBody);
  log(`blockyard balances (${tokens.length} tokens): warm-up ${options.warmupS} s, then ${options.durationS} s`);
  await runSequential(balances, options.warmupS);
  const fromUs = monotonicUs();
  const blockyard = await runSequential(balances, options.durationS);
  return { multicall: direct, blockyard, window: { fromUs, toUs: monotonicUs() } };
}

function multicallRequest(anvilUrl: string, holder: Address, tokens: readonly Address[], block: number): SequentialRequest {
  const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const data = encodeFunctionData({
    abi: multicall3Abi,
    functionName: 'aggregate3',
    args: [tokens.map((target) => ({ target, allowFailure: false, callData: balanceOf }))],
  });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: multicall3Address, data }, `0x${block.toString(16)}`],
  });
  return {
    url: anvilUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    check: (text) => {
      const answer = JSON.parse(text) as { result?: `0x${string}`; error?: { message?: string } };
      if (!answer.result) throw new Error(`aggregate3 answered ${answer.error?.message ?? text.slice(0, 200)}`);
      const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: answer.result });
      if (results.length !== tokens.length || results.some((result) => !result.success || BigInt(result.returnData) === 0n)) {
        throw new Error('aggregate3 did not return a non-zero balance for every token');
      }
    },
  };
}
