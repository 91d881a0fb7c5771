import type { Hex } from 'viem';
import type { RawTrace } from './raw-types.ts';

interface CallFrame {
  type: string;
  from?: Hex;
  to?: Hex;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

export interface CallTracerTx {
  txHash?: Hex;
  result?: CallFrame;
}

/** geth's callTracer tree (`debug_traceBlockByNumber`), flattened into the parity shape `decodeBlock` reads. */
export function fromCallTracer(transactions: readonly CallTracerTx[] | null | undefined): RawTrace[] {
  const traces: RawTrace[] = [];
  const walk = (frame: CallFrame, path: number[], txHash: Hex | null) => {
    const type = frame.type.toLowerCase();
    const isCreate = type === 'create' || type === 'create2';
    traces.push({
      type: isCreate ? 'create' : 'call',
      action: {
        callType: isCreate ? undefined : type,
        from: frame.from,
        to: isCreate ? undefined : frame.to,
        value: frame.value,
      },
      result: isCreate ? { address: frame.to } : null,
      traceAddress: path,
      transactionHash: txHash,
      error: frame.error,
    });
    frame.calls?.forEach((child, index) => {
      walk(child, [...path, index], txHash);
    });
  };
  for (const tx of transactions ?? []) if (tx.result) walk(tx.result, [], tx.txHash ?? null);
  return traces;
}
