/** Plain JSON-RPC to the chain directly (anvil): the observer's reads and the load's own transactions. */
export class ChainClient {
  private id = 1;

  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[] = [], timeoutMs = 5_000): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.id++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const reply = (await response.json()) as { result?: T; error?: { message: string } };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result as T;
  }

  async blockNumber(): Promise<bigint> {
    return BigInt(await this.call<string>('eth_blockNumber'));
  }
}
