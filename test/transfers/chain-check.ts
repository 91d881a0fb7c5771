import { type Abi, decodeEventLog, type Hex, type PublicClient } from 'viem';

/** Runtime code that forwards msg.value to `to` with a CALL: a contract that makes internal transfers. */
export function forwarderInitCode(to: string): Hex {
  // PUSH1 0 four times (return and argument sizes and offsets), CALLVALUE, PUSH20 to, GAS, CALL, STOP.
  const runtime = `600060006000600034${'73'}${to.slice(2)}5af100`;
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

export interface ApiTransfer {
  id: string;
  block_number: number;
  block_timestamp: string;
  tx_hash: Hex;
  log_index: number | null;
  from: string;
  to: string;
  category: string;
  contract: string | null;
  value: string;
  token_id: string | null;
  decimals: number | null;
  symbol: string | null;
}

interface ParityTrace {
  traceAddress: number[];
  action: { from?: string; to?: string; value?: Hex };
}

/**
 * What the chain says of one transfer the API listed, rebuilt from the receipt's log, the transaction
 * or its trace: the fields the API must equal.
 */
export async function transferOnChain(
  client: PublicClient,
  rpc: (method: string, params: unknown[]) => Promise<unknown>,
  item: ApiTransfer,
  abiOf: (contract: string) => Abi,
): Promise<Partial<ApiTransfer>> {
  const block = await client.getBlock({ blockNumber: BigInt(item.block_number) });
  const when = { block_number: Number(block.number), block_timestamp: new Date(Number(block.timestamp) * 1000).toISOString() };
  if (item.category === 'native') {
    const tx = await client.getTransaction({ hash: item.tx_hash });
    return { ...when, from: tx.from.toLowerCase(), to: tx.to!.toLowerCase(), value: tx.value.toString() };
  }
  if (item.category === 'internal') {
    const path = item.id.split(':internal:')[1];
    const traces = (await rpc('trace_transaction', [item.tx_hash])) as ParityTrace[];
    const call = traces.find((trace) => trace.traceAddress.join('.') === path)!;
    return { ...when, from: call.action.from, to: call.action.to, value: BigInt(call.action.value!).toString() };
  }
  const receipt = await client.getTransactionReceipt({ hash: item.tx_hash });
  const log = receipt.logs.find((entry) => entry.logIndex === item.log_index)!;
  const event = decodeEventLog({ abi: abiOf(log.address.toLowerCase()), data: log.data, topics: log.topics }) as unknown as {
    eventName: string;
    args: Record<string, unknown>;
  };
  const args = event.args;
  const base = {
    ...when,
    contract: log.address.toLowerCase(),
    from: String(args.from).toLowerCase(),
    to: String(args.to).toLowerCase(),
  };
  if (event.eventName === 'TransferBatch') {
    const index = Number(item.id.split(':').at(-1));
    return { ...base, token_id: String((args.ids as bigint[])[index]), value: String((args.values as bigint[])[index]) };
  }
  if (event.eventName === 'TransferSingle') return { ...base, token_id: String(args.id), value: String(args.value) };
  if (item.category === 'erc721') return { ...base, token_id: String(args.tokenId), value: '1' };
  return { ...base, value: String(args.value) };
}
