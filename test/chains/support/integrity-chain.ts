import { afterAll, beforeAll } from 'vitest';
import type { BundleAnswer } from '../../../src/chains/block-integrity.ts';
import type { Devnet } from '../../../src/chains/devnet.ts';
import { splitRpcAnswer } from '../../../src/jsonrpc/raw-answer.ts';
import { startTestAnvil } from '../../support/anvil.ts';
import type { Json } from './integrity-tampering.ts';

/** anvil's first default account, unlocked for eth_sendTransaction. */
export const sender = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/**
 * Creation code that emits LOG1(topic 1) and LOG1(topic 2) in its constructor and deploys
 * `CALLER PUSH1 0xaa PUSH1 0 PUSH1 0 LOG2 STOP`: every call to it emits one log.
 */
const emitterCreation = '0x600160006000a1600260006000a16009601a60003960096000f33360aa60006000a200';

/**
 * Registers, in the calling test file, an anvil started before its tests (and stopped after them) with the
 * chain described at `buildChain` mined and blocks 1..3 read into `bundles`; returns the calls to it.
 */
export function integrityChain() {
  let anvil: Devnet;
  let nextId = 1;

  /** One call's answer: the raw `result` text as the cache would store it, and its parsed value. */
  async function call(method: string, params: unknown[]): Promise<{ raw: string; value: unknown }> {
    const id = nextId++;
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const answer = splitRpcAnswer(await response.text(), String(id));
    if (answer?.kind !== 'result') throw new Error(`${method} failed: ${answer?.raw}`);
    return { raw: answer.raw, value: JSON.parse(answer.raw) };
  }

  const value = async (method: string, params: unknown[]) => (await call(method, params)).value;

  /**
   * Block 1: a plain transfer and a deployment (2 logs). Block 2: a call (1 log), a deployment
   * (2 logs), a call (1 log), so log indexes 0..3 span three transactions. Block 3: empty.
   */
  async function buildChain(): Promise<void> {
    await value('evm_setAutomine', [false]);
    const send = (tx: Json) => value('eth_sendTransaction', [{ from: sender, gas: '0x30000', ...tx }]);
    await send({ to: '0x00000000000000000000000000000000000b10c5', value: '0x1' });
    const deployment = (await send({ data: emitterCreation })) as string;
    await value('evm_mine', []);
    const receipt = (await value('eth_getTransactionReceipt', [deployment])) as { contractAddress: string };
    await send({ to: receipt.contractAddress });
    await send({ data: emitterCreation });
    await send({ to: receipt.contractAddress });
    await value('evm_mine', []);
    await value('evm_mine', []);
  }

  async function bundleOf(number: number): Promise<BundleAnswer> {
    const hex = `0x${number.toString(16)}`;
    return {
      block: await value('eth_getBlockByNumber', [hex, true]),
      receipts: await value('eth_getBlockReceipts', [hex]),
      traces: await value('trace_block', [hex]),
    };
  }

  const bundles: BundleAnswer[] = [];

  beforeAll(async () => {
    anvil = await startTestAnvil();
    await buildChain();
    for (let number = 1; number <= 3; number++) bundles.push(await bundleOf(number));
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  return { call, value, bundles };
}
