import { Pool } from 'undici';

export type RpcOutcome = { readonly result: unknown } | { readonly error: string };

/** One client of the service's JSON-RPC endpoint: its own connections, as a separate program would have. */
export interface RpcClient {
  readonly name: string;
  call(method: string, params?: unknown[]): Promise<RpcOutcome>;
  close(): Promise<void>;
}

const callTimeoutMs = 15_000;

/** A client of `{serviceUrl}/v1/rpc/ethereum/devnet` with the API key `key`. */
export function createRpcClient(name: string, serviceUrl: string, key: string): RpcClient {
  const pool = new Pool(serviceUrl, { connections: 2, pipelining: 1 });
  let id = 0;
  return {
    name,
    async call(method, params = []) {
      try {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/rpc/ethereum/devnet',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
          headersTimeout: callTimeoutMs,
          bodyTimeout: callTimeoutMs,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200) return { error: `HTTP ${response.statusCode}: ${text.slice(0, 160)}` };
        const answer = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } };
        if (answer.error) return { error: `${answer.error.code}: ${answer.error.message}` };
        return { result: answer.result ?? null };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    },
    close: () => pool.close(),
  };
}

/** A `0x` quantity as a number (block numbers), or undefined. */
export function quantity(value: unknown): number | undefined {
  return typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value) ? Number.parseInt(value, 16) : undefined;
}
