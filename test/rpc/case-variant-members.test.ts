import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { bundlerUrlOf, postBundler } from '../bundler/support.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

const listed: Address = '0x00000000000000000000000000000000000000bb';
const unlisted: Address = '0x00000000000000000000000000000000000000aa';
/** Init code that reads the unlisted contract: PUSH20 it, EXTCODESIZE, MSTORE at 0, RETURN 32 bytes. */
const readsUnlisted = `0x73${unlisted.slice(2)}3b60005260206000f3` as Hex;
/** The unlisted contract's code: 7 bytes, the size the init code returns. */
const unlistedCode = '0x60016000526001';
const sizeOfUnlisted = `0x${'7'.padStart(64, '0')}`;

const caseVariant = (name: string, where: string, meant: string) =>
  `invalid member "${name}" in ${where}: member names are case-sensitive; did you mean "${meant}"?`;

interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * Rust nodes read member names exactly: anvil runs `{"To": listed, "data": init code}` as a contract
 * creation, whose init code reads any contract. The proxy's checks read names as Go nodes do, so such a
 * call passed a key's contracts list; now a member that differs from a canonical name only in case is
 * refused (-32602) on every surface, before any check or upstream reads it.
 */
describe('member names that differ from the canonical ones only in case (a real anvil, the real service)', () => {
  let t: TestService;
  let contractsKey: string;
  let openKey: string;
  beforeAll(async () => {
    t = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
    await installErc4337Contracts(t.anvil.url);
    for (const address of [listed, unlisted]) await anvil('anvil_setCode', [address, unlistedCode]);
    const contracts = await t.createKey();
    await restrictKey(t, contracts.keyId, { contracts: [listed] });
    contractsKey = contracts.key;
    openKey = (await t.createKey()).key;
  }, 120_000);
  afterAll(() => t?.stop());

  async function anvil(method: string, params: unknown[]): Promise<Answer> {
    const response = await fetch(t.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as Answer;
  }
  const call = (method: string, params: unknown[], id = 1) => ({ jsonrpc: '2.0', id, method, params });
  const rpc = async (key: string, body: unknown): Promise<{ status: number; body: Answer & Answer[] }> => {
    const response = await t.rpc(key, body);
    return { status: response.status, body: (await response.json()) as Answer & Answer[] };
  };
  const toListedReadingUnlisted = [{ To: listed, data: readsUnlisted }, 'latest'];

  it('anvil itself ignores `To`: the call is a contract creation that reads the unlisted contract', async () => {
    expect((await anvil('eth_call', toListedReadingUnlisted)).result).toBe(sizeOfUnlisted);
  });

  it('/v1/rpc: `To` is -32602 naming it and `to`, alone and in a batch; the unlisted contract is never read', async () => {
    const single = await rpc(contractsKey, call('eth_call', toListedReadingUnlisted));
    expect(single.status).toBe(200);
    expect(single.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: caseVariant('To', 'params[0]', 'to') },
    });
    const batch = await rpc(contractsKey, [call('eth_call', toListedReadingUnlisted, 1), call('eth_chainId', [], 2)]);
    expect(batch.body[0]!.error?.code).toBe(-32602);
    expect(batch.body[1]!.result).toBe('0x7a69');
    // A key without restrictions gets the same answer: the rule is the call's shape, not the key's.
    expect((await rpc(openKey, call('eth_call', toListedReadingUnlisted))).body.error?.code).toBe(-32602);
  });

  it('/v1/rpc: any params object, at any depth, names where the member is', async () => {
    const cases: [string, unknown[], string][] = [
      ['eth_getLogs', [{ Address: listed, fromBlock: '0x0' }], caseVariant('Address', 'params[0]', 'address')],
      ['eth_estimateGas', [{ to: listed, DATA: '0x' }], caseVariant('DATA', 'params[0]', 'data')],
      [
        'eth_call',
        [{ to: listed }, 'latest', { [listed]: { Code: '0x00' } }],
        caseVariant('Code', `params[2]["${listed}"]`, 'code'),
      ],
      [
        'eth_simulateV1',
        [{ blockStateCalls: [{ calls: [{ to: listed }, { tO: listed }] }] }, 'latest'],
        caseVariant('tO', 'params[0].blockStateCalls[0].calls[1]', 'to'),
      ],
      ['eth_createAccessList', [{ to: listed, Input: '0x' }], caseVariant('Input', 'params[0]', 'input')],
      ['debug_traceCall', [{ to: listed }, 'latest', { Tracer: 'callTracer' }], caseVariant('Tracer', 'params[2]', 'tracer')],
      [
        'alchemy_getAssetTransfers',
        [{ ContractAddresses: [listed], category: ['erc20'] }],
        caseVariant('ContractAddresses', 'params[0]', 'contractAddresses'),
      ],
      // Go's folding: the long s is an s.
      ['eth_getLogs', [{ addreſſ: listed }], caseVariant('addreſſ', 'params[0]', 'address')],
    ];
    for (const [method, params, message] of cases) {
      const answer = await rpc(contractsKey, call(method, params));
      expect(answer.body.error, method).toEqual({ code: -32602, message });
    }
  });

  it('/v1/rpc: canonical names pass, and so do members that are no case variant of one (as before)', async () => {
    const listedCall = await rpc(contractsKey, call('eth_call', [{ to: listed, data: '0x', extra: 1 }, 'latest']));
    expect(listedCall.body.error).toBeUndefined();
    // EIP-712 typed data: its field names are the signer's, not the node's.
    const typedData = {
      types: { EIP712Domain: [{ name: 'name', type: 'string' }], Mail: [{ name: 'To', type: 'address' }] },
      primaryType: 'Mail',
      domain: { name: 'mail' },
      message: { To: listed },
    };
    const [account] = (await anvil('eth_accounts', [])).result as string[];
    const signed = await rpc(openKey, call('eth_signTypedData_v4', [account, typedData]));
    expect(signed.body.result).toMatch(/^0x[0-9a-f]{130}$/);
  });

  it('the bundler URL: the chain’s calls and the bundler’s own methods are refused alike', async () => {
    const url = bundlerUrlOf(t.url);
    const chainCall = await postBundler(url, contractsKey, call('eth_call', toListedReadingUnlisted));
    expect(chainCall.body.error).toEqual({ code: -32602, message: caseVariant('To', 'params[0]', 'to') });
    const inBatch = await postBundler(url, contractsKey, [call('eth_call', toListedReadingUnlisted, 7)]);
    expect(inBatch.body[0]!.error?.code).toBe(-32602);
    const op = { Sender: listed, nonce: '0x0', callData: '0x' };
    const own = await postBundler(url, openKey, call('eth_estimateUserOperationGas', [op, listed]));
    expect(own.body.error).toMatchObject({ code: -32602, message: caseVariant('Sender', 'params[0]', 'sender') });
  });

  it('the WebSocket: a call and a logs subscription with a case variant are refused, the socket stays open', async () => {
    const ws = await connectRaw(`${t.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet?apiKey=${contractsKey}`);
    try {
      const answer = await ws.call('eth_call', toListedReadingUnlisted);
      expect(answer.error).toEqual({ code: -32602, message: caseVariant('To', 'params[0]', 'to') });
      expect(answer.result).toBeUndefined();
      const subscribed = await ws.call('eth_subscribe', ['logs', { ADDRESS: listed }]);
      expect(subscribed.error).toEqual({ code: -32602, message: caseVariant('ADDRESS', 'params[1]', 'address') });
      expect((await ws.call('eth_chainId', [])).result).toBe('0x7a69');
    } finally {
      ws.close();
    }
  });
});
