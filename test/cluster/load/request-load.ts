import { type Address, encodeFunctionData, parseAbi } from 'viem';
import type { ClusterTargets } from './contract.ts';
import type { PhaseRecorder } from './phase-stats.ts';
import type { RecentResults } from './recent-results.ts';
import { timedRequest } from './timed-request.ts';

const balanceOfAbi = parseAbi(['function balanceOf(address) view returns (uint256)']);

export interface RequestLoadOptions {
  /** JSON-RPC calls per second (default 20). */
  rpcPerSecond?: number;
  /** REST calls per second (default 2). */
  restPerSecond?: number;
}

/**
 * Steady JSON-RPC (eth_blockNumber, eth_getBalance, eth_call in turn) and REST (GET /v1/webhooks)
 * through the load balancer, each request recorded in the current phase. Started requests are not
 * awaited by the ticker: a slow answer does not slow the rate (each is bounded by its 5 s deadline).
 */
export function startRequestLoad(
  deps: { targets: ClusterTargets; key: string; holder: Address; token: Address; recorder: PhaseRecorder; recent: RecentResults },
  options: RequestLoadOptions = {},
): { stop(): Promise<void> } {
  const { targets, key, recorder, recent } = deps;
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const rpcUrl = `${targets.lbUrl}/v1/rpc/${targets.chain}/${targets.network}`;
  const calls = [
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_getBalance', params: [deps.holder, 'latest'] },
    {
      method: 'eth_call',
      params: [{ to: deps.token, data: encodeFunctionData({ abi: balanceOfAbi, args: [deps.holder] }) }, 'latest'],
    },
  ];
  let turn = 0;
  const rpcTimer = setInterval(
    () => {
      const call = calls[turn++ % calls.length]!;
      track(
        timedRequest(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ jsonrpc: '2.0', id: turn, ...call }),
        }).then((answer) => {
          recorder.record(answer.outcome);
          recent.note('json-rpc', answer.status === 200 && answer.body?.result !== undefined);
        }),
      );
    },
    1000 / (options.rpcPerSecond ?? 20),
  );
  const restTimer = setInterval(
    () => {
      track(
        timedRequest(`${targets.lbUrl}/v1/webhooks?limit=10`, { headers: { 'x-api-key': key } }).then((answer) => {
          recorder.record(answer.outcome);
          recent.note('rest', answer.status === 200);
        }),
      );
    },
    1000 / (options.restPerSecond ?? 2),
  );
  return {
    async stop() {
      clearInterval(rpcTimer);
      clearInterval(restTimer);
      await Promise.all(inFlight);
    },
  };
}
