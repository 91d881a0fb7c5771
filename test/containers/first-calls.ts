import { callJson } from './calls.ts';
import type { ComposeProject } from './compose.ts';

export interface FirstCalls {
  readonly key: string;
  readonly blockNumber: number;
  readonly chainId: number;
}

/** As a user starts: an account and a key through the admin API, then JSON-RPC and REST with the key, all through haproxy. */
export async function makeFirstCalls(project: ComposeProject, lbUrl: string): Promise<FirstCalls> {
  const admin = { authorization: `Bearer ${project.adminToken}` };
  const account = await callJson(`${lbUrl}/admin/accounts`, {
    headers: admin,
    body: { name: 'compose test', plan: 'enterprise' },
  });
  const created = await callJson(`${lbUrl}/admin/accounts/${account.id}/keys`, {
    headers: admin,
    body: { name: 'compose test', environment: 'test' },
  });
  const key = created.key as string;
  const rpc = async (method: string) => {
    const answer = await callJson(`${lbUrl}/v1/rpc/ethereum/devnet`, {
      headers: { 'x-api-key': key },
      body: { jsonrpc: '2.0', id: 1, method, params: [] },
    });
    if (typeof answer?.result !== 'string') throw new Error(`${method} answered ${JSON.stringify(answer)}`);
    return Number(answer.result);
  };
  const blockNumber = await rpc('eth_blockNumber');
  const chainId = await rpc('eth_chainId');
  if (chainId !== 31337) throw new Error(`eth_chainId through haproxy was ${chainId}, not the devnet's 31337`);
  const prices = await callJson(`${lbUrl}/v1/gas/ethereum/prices?network=devnet`, { headers: { 'x-api-key': key } });
  if (prices === undefined || typeof prices !== 'object') throw new Error('GET /v1/gas/ethereum/prices gave no answer');
  return { key, blockNumber, chainId };
}
