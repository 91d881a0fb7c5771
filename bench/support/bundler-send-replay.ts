// What Blockyard's eth_sendUserOperation asks the node, replayed from outside once an op it accepted
// is included (at a random point of a block interval, as the sends are): the head block (the service
// reads it at most every 500 ms), the ERC-7562 check's traces of the EntryPoint's simulateValidation
// (debug_traceCall with EntryPointSimulations as a code override; the call tree's top frame is the
// simulation's result, so the service makes no separate eth_call of it in its safe mode, on by default;
// without it, an eth_call of the simulation replaces the traces), and one eth_call of the op's call.
// The nonce on chain is read only for a sender with ops queued, which these are not. The traces at the
// block before the op's (the state it was sent in), the rest at the head (as the service asks them).
// The service asks them at once; each is timed alone here. The op's own EntryPoint, with its version's
// EntryPointSimulations (v0.7 or v0.8).
import { readFileSync } from 'node:fs';
import { type Hex, type PublicClient, toHex } from 'viem';
import { toPackedUserOperation } from 'viem/account-abstraction';
import { simulationsCodeOf } from '../../src/bundler/entry-points.ts';
import { checkCallSucceeds } from '../../src/bundler/gas-estimation.ts';
import { checkValidationRules, traceValidation } from '../../src/bundler/validation-rules.ts';
import { entryPointSimulationsV07Abi } from '../../src/erc4337/contracts/entry-point-simulations.ts';
import type { OpSample } from './bundler-ops.ts';

export interface SendReplay {
  /** eth_getBlockByNumber('latest'). */
  pointReadsMs: number;
  /** eth_call of simulateValidation: only when the traces are not asked (safe mode off). */
  simulateValidationMs: number;
  traceMs: number;
  /** debug_traceCall requests the check made (two quick tracers; a third, step trace, when they cannot decide). */
  traceCalls: number;
  /** The traces' size as JSON. */
  traceBytes: number;
  /** eth_call of the op's call from the EntryPoint (the execution check). */
  callCheckMs: number;
}

/** `trace`: whether the service runs the ERC-7562 check (its bundler.safe_mode). */
export async function replaySend(client: PublicClient, sample: OpSample, trace = true): Promise<SendReplay> {
  const op = sample.userOp;
  const { entryPoint, version } = sample;
  const before = sample.block - 1n;
  let from = performance.now();
  await client.getBlock({ blockTag: 'latest' });
  const pointReadsMs = performance.now() - from;
  from = performance.now();
  if (!trace)
    await client.simulateContract({
      address: entryPoint,
      abi: entryPointSimulationsV07Abi,
      functionName: 'simulateValidation',
      args: [toPackedUserOperation(op)],
      stateOverride: [{ address: entryPoint, code: simulationsCodeOf(version) }],
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
        version,
        entryPoint,
        op,
      ),
      {
        entryPoint,
        sender: op.sender,
        factory: op.factory ?? undefined,
        deploying: op.factory !== undefined && op.factory !== null,
        staked: { sender: false, factory: false, paymaster: false },
      },
    );
  const traceMs = performance.now() - from;
  from = performance.now();
  await checkCallSucceeds(client, entryPoint, op, sample.kind === 'deploy');
  const callCheckMs = performance.now() - from;
  return { pointReadsMs, simulateValidationMs, traceMs, traceCalls, traceBytes, callCheckMs };
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
