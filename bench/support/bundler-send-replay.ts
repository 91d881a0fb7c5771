// What Blockyard's eth_sendUserOperation asks the node, replayed from outside once an op it accepted
// is included (at a random point of a block interval, as the sends are): the head block and the
// sender's nonce, the EntryPoint's simulateValidation (eth_call with EntryPointSimulations as a code
// override), the ERC-7562 check's traces of the same call (debug_traceCall: its safe mode, on
// by default) and eth_estimateGas of the op's call. The nonce, simulation and trace at the block before
// the op's (the state it was sent in), the rest at the head (as the service asks them). Each is timed;
// what the send took beyond their sum is the service's own (HTTP, the key, the mempool read and insert)
// plus any wait for the node.
import { readFileSync } from 'node:fs';
import { type Hex, type PublicClient, toHex } from 'viem';
import { entryPoint07Abi, entryPoint07Address, toPackedUserOperation } from 'viem/account-abstraction';
import { estimateCallGas } from '../../src/bundler/gas-estimation.ts';
import { checkValidationRules, traceValidation } from '../../src/bundler/validation-rules.ts';
import {
  entryPointSimulationsV07Abi,
  getEntryPointSimulationsV07Code,
} from '../../src/erc4337/contracts/entry-point-simulations.ts';
import type { OpSample } from './bundler-ops.ts';

export interface SendReplay {
  /** eth_getBlockByNumber('latest') and EntryPoint.getNonce, one after the other as the service asks them. */
  pointReadsMs: number;
  simulateValidationMs: number;
  traceMs: number;
  /** debug_traceCall requests the check made (two quick tracers; a third, step trace, when they cannot decide). */
  traceCalls: number;
  /** The traces' size as JSON. */
  traceBytes: number;
  estimateCallGasMs: number;
}

/** `trace`: whether the service runs the ERC-7562 check (its bundler.safe_mode). */
export async function replaySend(client: PublicClient, sample: OpSample, trace = true): Promise<SendReplay> {
  const op = sample.userOp;
  const before = sample.block - 1n;
  let from = performance.now();
  await client.getBlock({ blockTag: 'latest' });
  await client.readContract({
    address: entryPoint07Address,
    abi: entryPoint07Abi,
    functionName: 'getNonce',
    args: [op.sender, op.nonce >> 64n],
    blockNumber: before,
  });
  const pointReadsMs = performance.now() - from;
  from = performance.now();
  await client.simulateContract({
    address: entryPoint07Address,
    abi: entryPointSimulationsV07Abi,
    functionName: 'simulateValidation',
    args: [toPackedUserOperation(op)],
    stateOverride: [{ address: entryPoint07Address, code: getEntryPointSimulationsV07Code() }],
    blockNumber: before,
  });
  const simulateValidationMs = performance.now() - from;
  let traceCalls = 0;
  let traceBytes = 0;
  from = performance.now();
  if (trace)
    await checkValidationRules(
      traceValidation(
        async (call, options) => {
          const result = await client.request({
            method: 'debug_traceCall' as never,
            params: [call, toHex(before), options] as never,
          });
          traceCalls++;
          traceBytes += JSON.stringify(result).length;
          return result;
        },
        '0.7',
        entryPoint07Address,
        op,
      ),
      {
        entryPoint: entryPoint07Address,
        sender: op.sender,
        factory: op.factory ?? undefined,
        deploying: op.factory !== undefined && op.factory !== null,
        staked: { sender: false, factory: false, paymaster: false },
      },
    );
  const traceMs = performance.now() - from;
  from = performance.now();
  await estimateCallGas(client, entryPoint07Address, op, sample.kind === 'deploy');
  const estimateCallGasMs = performance.now() - from;
  return { pointReadsMs, simulateValidationMs, traceMs, traceCalls, traceBytes, estimateCallGasMs };
}

/** When the service logged each bundle as sent (its pino `time`, ms), by transaction hash. */
export function bundleSentTimes(logFile: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"bundle sent"') && !line.includes('sent again')) continue;
    try {
      const entry = JSON.parse(line) as { time?: string | number; tx?: Hex; replacement?: Hex; msg?: string };
      const at = typeof entry.time === 'number' ? entry.time : Date.parse(entry.time ?? '');
      const tx = entry.replacement ?? entry.tx;
      if (tx && Number.isFinite(at) && !times.has(tx.toLowerCase())) times.set(tx.toLowerCase(), at);
    } catch {
      // Not a JSON line (the banner).
    }
  }
  return times;
}
