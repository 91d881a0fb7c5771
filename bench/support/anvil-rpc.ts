/** One JSON-RPC call straight to anvil (evm_mine, eth_blockNumber), bounded in time. */
export async function anvilCall(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const answer = (await response.json()) as { result?: unknown; error?: { message?: string } };
  if (response.status !== 200 || answer.error) {
    throw new Error(`anvil ${method} answered ${response.status} ${answer.error?.message ?? ''}`);
  }
  return answer.result;
}
