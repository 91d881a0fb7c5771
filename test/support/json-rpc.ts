let nextId = 1;

/** One JSON-RPC call over HTTP (an anvil, a test node, the service); throws on an error answer, naming the method. */
export async function jsonRpc(url: string, method: string, params: unknown[] = [], timeoutMs = 10_000): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
