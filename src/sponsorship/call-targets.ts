import { decodeFunctionData, type Hex, parseAbi } from 'viem';

/** One call an account makes for its op: the contract and the function selector (null for a plain transfer). */
export interface AccountCall {
  readonly to: string;
  readonly selector: string | null;
}

/** The execute functions of the common accounts (SimpleAccount v0.6/v0.7, Kernel-style batches, Simple7702Account). */
const accountAbi = parseAbi([
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, bytes[] func)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
  'function executeBatch((address target, uint256 value, bytes data)[] calls)',
]);

const selectorOf = (data: Hex): string | null => (data.length >= 10 ? data.slice(0, 10).toLowerCase() : null);

/**
 * The calls an op's callData makes through its account, or undefined when it is not one of the
 * execute functions above (a policy that names contracts or methods then refuses it). Pure.
 */
export function accountCallsOf(callData: Hex): AccountCall[] | undefined {
  if (callData === '0x') return [];
  let decoded: ReturnType<typeof decodeFunctionData<typeof accountAbi>>;
  try {
    decoded = decodeFunctionData({ abi: accountAbi, data: callData });
  } catch {
    return undefined;
  }
  if (decoded.functionName === 'execute') {
    const [dest, , func] = decoded.args as readonly [Hex, bigint, Hex];
    return [{ to: dest.toLowerCase(), selector: selectorOf(func) }];
  }
  const args = decoded.args as readonly unknown[];
  if (args.length === 1) {
    const calls = args[0] as readonly { target: Hex; data: Hex }[];
    return calls.map((call) => ({ to: call.target.toLowerCase(), selector: selectorOf(call.data) }));
  }
  const dest = args[0] as readonly Hex[];
  const funcs = args[args.length - 1] as readonly Hex[];
  // SimpleAccount v0.6 allows an empty func list: plain transfers to each destination.
  return dest.map((to, index) => ({
    to: to.toLowerCase(),
    selector: funcs.length === 0 ? null : selectorOf(funcs[index] ?? '0x'),
  }));
}
