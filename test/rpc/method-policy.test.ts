import { describe, expect, it } from 'vitest';
import type { TestRpcServer } from '../support/rpc-server.ts';
import type { TestService } from '../support/service.ts';
import { answerChainId, useServiceWithSepolia } from '../support/service-setups.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

const sepolia = '/v1/rpc/ethereum/sepolia';
const someone = '0x000000000000000000000000000000000000beef';

/** Methods a real node has that no key may reach through the proxy of a network without dev_methods. */
const refusedOnRealNetworks: [string, unknown[]][] = [
  ['debug_setHead', ['0x1']],
  ['debug_writeMemProfile', ['/tmp/x']],
  ['txpool_content', []],
  ['eth_sign', [someone, '0xdeadbeef']],
  ['eth_signTypedData_v4', [someone, {}]],
  ['eth_signTransaction', [{ from: someone }]],
  ['eth_sendTransaction', [{ from: someone }]],
  ['engine_forkchoiceUpdatedV3', [{}]],
  ['admin_addPeer', ['enode://abc@127.0.0.1:30303']],
  ['anvil_setBalance', [someone, '0x1']],
  ['personal_unlockAccount', [someone, 'pw']],
  ['miner_start', []],
  ['erigon_forks', []],
  ['', []],
];

/** Reads every key with rpc:read reaches on any network. */
const servedReads = [
  'eth_chainId',
  'net_version',
  'web3_clientVersion',
  'eth_noSuchMethodYet',
  'debug_traceTransaction',
  'trace_block',
];

/** Node-control methods on the devnet (dev_methods: true): rpc:write only. */
const nodeControl: [string, unknown[]][] = [
  ['anvil_setBalance', [someone, '0x1']],
  ['anvil_setCode', [someone, '0x00']],
  ['anvil_mine', ['0x1']],
  ['anvil_impersonateAccount', [someone]],
  ['evm_snapshot', []],
];

describe('method policy: an allowlist, node control behind rpc:write on devnets only', () => {
  let t: TestService;
  let upstream: TestRpcServer;
  let readKey: string;
  let fullKey: string;
  useServiceWithSepolia(answerChainId, (started) => ({ t, upstream, readKey, key: fullKey } = started));

  it.each(refusedOnRealNetworks)('%s on a network without dev_methods: -32601, never forwarded', async (method, params) => {
    for (const key of [readKey, fullKey]) {
      const response = await t.rpc(key, { jsonrpc: '2.0', id: 1, method, params }, sepolia);
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { error: { code: number; message: string } };
      expect(answer.error).toEqual({ code: -32601, message: `the method '${method}' is not available on ethereum/sepolia` });
    }
    expect(upstream.count(method)).toBe(0);
  });

  it('eth_accounts on a network without dev_methods: [] as the providers answer, alone, in a batch and over WebSocket; never forwarded', async () => {
    const alone = await t.rpc(readKey, { jsonrpc: '2.0', id: 7, method: 'eth_accounts', params: [] }, sepolia);
    expect(alone.status).toBe(200);
    expect(await alone.json()).toEqual({ jsonrpc: '2.0', id: 7, result: [] });
    const batch = await t.rpc(
      readKey,
      [
        { jsonrpc: '2.0', id: 'a', method: 'eth_accounts' },
        { jsonrpc: '2.0', method: 'eth_accounts' },
        { jsonrpc: '2.0', id: 'c', method: 'eth_chainId' },
      ],
      sepolia,
    );
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: [] },
      { jsonrpc: '2.0', id: 'c', result: '0x7a69' },
    ]);
    const socket = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/sepolia?apiKey=${readKey}`);
    try {
      expect((await socket.call('eth_accounts')).result).toEqual([]);
    } finally {
      socket.close();
    }
    expect(upstream.count('eth_accounts')).toBe(0);
  });

  it('eth_*, net_*, web3_* and the priced debug and trace reads are forwarded for rpc:read', async () => {
    for (const method of servedReads) {
      const response = await t.rpc(readKey, { jsonrpc: '2.0', id: 1, method, params: [] }, sepolia);
      expect(response.status, method).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
      expect(upstream.count(method), method).toBeGreaterThan(0);
    }
  });

  it.each(nodeControl)(
    '%s on the devnet: 403 for an rpc:read key (-32010 in a batch), served with rpc:write',
    async (method, params) => {
      const alone = await t.rpc(readKey, { jsonrpc: '2.0', id: 1, method, params });
      expect(alone.status).toBe(403);
      expect(((await alone.json()) as { error: { message: string } }).error.message).toMatch(/lacks the scope 'rpc:write'/);
      const batch = await t.rpc(readKey, [
        { jsonrpc: '2.0', id: 1, method, params },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId' },
      ]);
      const [refused, served] = (await batch.json()) as { result?: unknown; error?: { code: number } }[];
      expect(refused!.error!.code).toBe(-32010);
      expect(served!.result).toBe('0x7a69');
      const allowed = await t.rpc(fullKey, { jsonrpc: '2.0', id: 1, method, params });
      expect(allowed.status).toBe(200);
      expect((await allowed.json()) as object).toHaveProperty('result');
    },
  );

  it("the node's accounts on the devnet: eth_accounts and eth_sign for rpc:read, eth_sendTransaction for rpc:write", async () => {
    const accounts = (await (await t.rpc(readKey, { jsonrpc: '2.0', id: 1, method: 'eth_accounts' })).json()) as {
      result: string[];
    };
    expect(accounts.result.length).toBeGreaterThan(0);
    const signed = await t.rpc(readKey, {
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_sign',
      params: [accounts.result[0], '0xdeadbeef'],
    });
    expect(((await signed.json()) as { result: string }).result).toMatch(/^0x[0-9a-f]{130}$/);
    const send = { jsonrpc: '2.0', id: 3, method: 'eth_sendTransaction', params: [{ from: accounts.result[0], to: someone }] };
    expect((await t.rpc(readKey, send)).status).toBe(403);
  });

  it('over WebSocket the same policy applies to every forwarded call', async () => {
    const ws = (key: string, network: string) => `${t.url.replace('http', 'ws')}/v1/ws/ethereum/${network}?apiKey=${key}`;
    const onSepolia = await connectRaw(ws(fullKey, 'sepolia'));
    const onDevnet = await connectRaw(ws(readKey, 'devnet'));
    try {
      for (const [method, params] of refusedOnRealNetworks.slice(0, 5)) {
        expect((await onSepolia.call(method, params)).error.code, method).toBe(-32601);
      }
      for (const [method, params] of nodeControl) {
        const answer = await onDevnet.call(method, params);
        expect(answer.error.code, method).toBe(-32010);
        expect(answer.error.message).toMatch(/rpc:write/);
      }
      expect((await onDevnet.call('eth_chainId')).result).toBe('0x7a69');
    } finally {
      onSepolia.close();
      onDevnet.close();
    }
    for (const [method] of refusedOnRealNetworks) expect(upstream.count(method)).toBe(0);
  });
});
