import { describe, expect, it } from 'vitest';
import type { TestRpcServer } from '../support/rpc-server.ts';
import type { TestService } from '../support/service.ts';
import { answerChainId, useServiceWithSepolia } from '../support/service-setups.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

const sepolia = '/v1/rpc/ethereum/sepolia';
const enode = 'enode://abc@127.0.0.1:30303';

/**
 * The smuggling of issue 20: the proxy must check and bill the very call the node runs. A Go node
 * (geth, erigon, op-geth, bor) matches member names case-insensitively, last one wins, so each body
 * below would run `admin_addPeer` or `eth_sendRawTransaction` there while the proxy saw `eth_chainId`.
 * The upstream here is a real HTTP server that records every body it receives.
 */
const smuggled: [string, string][] = [
  [
    'a second jsonrpc and method in capitals',
    `{"jsonrpc":"x","JSONRPC":"2.0","id":1,"method":"eth_chainId","METHOD":"admin_addPeer","params":["${enode}"]}`,
  ],
  ['Method after method', `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","Method":"admin_addPeer","params":["${enode}"]}`],
  [
    'a send hidden from the scope check',
    '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","mEthod":"eth_sendRawTransaction","params":["0x00"]}',
  ],
  ['Params beside params', `{"jsonrpc":"2.0","id":1,"method":"admin_addPeer","params":[],"Params":["${enode}"]}`],
  // U+017F (ſ) folds to "s" in Go's case-insensitive match.
  ['a Unicode fold of params', `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","paramſ":["${enode}"]}`],
];

/** Every call object the upstream received (batch elements one by one). */
function callsSeen(upstream: TestRpcServer): Record<string, unknown>[] {
  return upstream.seen.flatMap(({ body }) => {
    const parsed = JSON.parse(body) as Record<string, unknown> | Record<string, unknown>[];
    return Array.isArray(parsed) ? parsed : [parsed];
  });
}

describe('method smuggling: the upstream runs only the call the proxy checked', () => {
  let t: TestService;
  let upstream: TestRpcServer;
  let readKey: string;
  let fullKey: string;
  useServiceWithSepolia(answerChainId, (started) => ({ t, upstream, readKey, key: fullKey } = started));

  /** No call the upstream received has a member other than the four, nor a method the client did not send cleanly. */
  const expectNothingSmuggled = () => {
    for (const call of callsSeen(upstream)) {
      expect(
        Object.keys(call).every((name) => ['jsonrpc', 'id', 'method', 'params'].includes(name)),
        JSON.stringify(call),
      ).toBe(true);
      expect(call.jsonrpc).toBe('2.0');
      expect(['admin_addPeer', 'eth_sendRawTransaction']).not.toContain(call.method);
    }
    expect(upstream.seen.some(({ body }) => body.includes(enode))).toBe(false);
  };

  it.each(smuggled)('%s: a single call is refused with -32600 naming the member, and never forwarded', async (_name, body) => {
    for (const key of [readKey, fullKey]) {
      const response = await t.rpc(key, body, sepolia);
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { id: unknown; error: { code: number; message: string } };
      expect(answer.id).toBe(1);
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toMatch(/^Invalid request: unexpected member '(JSONRPC|Method|mEthod|Params|paramſ)'/);
    }
    expectNothingSmuggled();
  });

  it('in a batch, the smuggling call is refused and the clean one forwarded as rebuilt, without extra members', async () => {
    const body = `[${smuggled.map(([, call]) => call).join(',')},{"params":[],"id":"clean","method":"eth_chainId","jsonrpc":"2.0"}]`;
    const response = await t.rpc(fullKey, body, sepolia);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: unknown; result?: string; error?: { code: number } }[];
    expect(answers.slice(0, smuggled.length).map((a) => a.error?.code)).toEqual(smuggled.map(() => -32600));
    expect(answers.at(-1)).toEqual({ jsonrpc: '2.0', id: 'clean', result: '0x7a69' });
    expectNothingSmuggled();
  });

  it('a clean call reaches the upstream as a rebuilt body, not the text the client sent', async () => {
    const before = upstream.seen.length;
    const response = await t.rpc(
      fullKey,
      ' {"params":[ "0x1", false ],\n"method":"eth_getBlockByNumber","id":77,"jsonrpc":"2.0"} ',
      sepolia,
    );
    expect(response.status).toBe(200);
    const received = upstream.seen.slice(before).map(({ body }) => body);
    expect(received).toContain('{"jsonrpc":"2.0","id":77,"method":"eth_getBlockByNumber","params":["0x1",false]}');
  });

  it('over WebSocket, the same calls are refused and never forwarded', async () => {
    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/sepolia?apiKey=${fullKey}`);
    try {
      for (const [, body] of smuggled) {
        client.messages.length = 0;
        client.send(body);
        const answer = await client.waitFor((m) => m.id === 1);
        expect(answer.error.code).toBe(-32600);
      }
      client.send(`[${smuggled[0]![1]},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`);
      const batch = await client.waitFor((m) => Array.isArray(m));
      expect(batch.map((a: { error?: { code: number } }) => a.error?.code)).toEqual([-32600, undefined]);
    } finally {
      client.close();
    }
    expectNothingSmuggled();
  });
});
