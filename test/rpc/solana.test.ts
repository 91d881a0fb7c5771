import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solanaComputeUnits } from '../../src/limits/solana-compute-units.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A local HTTP server that answers like a Solana RPC node (none runs here), counting what it gets. */
function startFakeSolanaNode(): Promise<{ server: Server; url: string; received: string[] }> {
  const received: string[] = [];
  const answers: Record<string, unknown> = {
    getHealth: 'ok',
    getGenesisHash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    getSlot: 287_654_321,
    getBalance: { context: { apiVersion: '2.1.0', slot: 287_654_321 }, value: 1_500_000_000 },
    getProgramAccounts: [],
    sendTransaction: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const call = JSON.parse(body) as { id: unknown; method: string };
      received.push(call.method);
      const answer = Object.hasOwn(answers, call.method)
        ? { jsonrpc: '2.0', result: answers[call.method], id: call.id }
        : { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: call.id };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received }),
    ),
  );
}

describe('Solana passthrough (kind: solana)', () => {
  let node: Awaited<ReturnType<typeof startFakeSolanaNode>>;
  let t: TestService;
  const path = '/v1/rpc/solana/devnet';
  beforeAll(async () => {
    node = await startFakeSolanaNode();
    t = await startTestService({
      chains: [{ chain: 'solana', network: 'devnet', kind: 'solana', upstreams: [{ url: node.url }] }],
    });
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise((resolve) => node?.server.close(resolve));
  });

  it('forwards Solana methods and returns the node answers unchanged', async () => {
    const { key } = await t.createKey();
    const response = await t.rpc(
      key,
      { jsonrpc: '2.0', id: 7, method: 'getBalance', params: ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaY3mDLVcri'] },
      path,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      '{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.1.0","slot":287654321},"value":1500000000},"id":7}',
    );
    const unknown = await t.rpc(key, { jsonrpc: '2.0', id: 8, method: 'getNothing', params: [] }, path);
    expect(await unknown.json()).toEqual({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 8 });
  });

  it('charges compute units from the Solana table', async () => {
    const { key } = await t.createKey({ plan: 'free' });
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'getProgramAccounts', params: ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'] },
    ];
    const response = await t.rpc(key, batch, path);
    expect(response.status).toBe(200);
    const remaining = Number(response.headers.get('x-ratelimit-remaining-cu'));
    expect(remaining).toBe(200 - solanaComputeUnits.getSlot! - solanaComputeUnits.getProgramAccounts!);
  });

  it('sendTransaction needs rpc:write', async () => {
    const readOnly = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const call = { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['AQAB'] };
    const sent = node.received.length;
    const refused = await t.rpc(readOnly, call, path);
    expect(refused.status).toBe(403);
    expect(node.received.length).toBe(sent);
    const { key } = await t.createKey({ scopes: ['rpc:read', 'rpc:write'] });
    const accepted = await t.rpc(key, call, path);
    expect(((await accepted.json()) as { result: string }).result).toMatch(/^5VERv8/);
  });

  it('reports the node healthy through getHealth, and has no gas prices', async () => {
    const health = (await (await fetch(`${t.url}/healthz`)).json()) as { checks: Record<string, string> };
    expect(health.checks['chain solana/devnet']).toBe('ok');
    const { key } = await t.createKey();
    const gas = await fetch(`${t.url}/v1/gas/solana/prices`, { headers: { 'x-api-key': key } });
    expect(gas.status).toBe(404);
    expect(((await gas.json()) as { error: { message: string } }).error.message).toMatch(/EVM chains/);
  });
});
