import { invalidRequest } from '../core/errors.ts';
import { paramsObject, parseAddress, positionalParams, quote } from './rpc-params.ts';

/** One transaction to simulate, as the node's call object takes it (hex strings, lower-case addresses). */
export interface SimulationCall {
  readonly from?: string;
  readonly to?: string;
  readonly value?: string;
  readonly data?: string;
  readonly gas?: string;
}

/** Alchemy's bundle forms take at most three transactions. */
export const maxBundleSize = 3;

/**
 * The members a transaction object may carry (alchemy-sdk passes ethers' and viem's shapes through).
 * Fee fields are read and not used: a simulation charges no gas, as Alchemy's asset changes never list
 * the fee; `nonce`, `type`, `chainId` and `accessList` are accepted and ignored likewise.
 */
const transactionMembers = [
  'from',
  'to',
  'value',
  'data',
  'input',
  'gas',
  'gasLimit',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'nonce',
  'type',
  'chainId',
  'accessList',
] as const;

const hexQuantity = /^0x[0-9a-fA-F]{1,64}$/;
/** Members the node reads as 64-bit numbers; the others (value, fees) take 256 bits. */
const uint64Members = new Set(['gas', 'nonce', 'type', 'chainId']);
const maxUint64 = 2n ** 64n - 1n;
const hexBytes = /^0x(?:[0-9a-fA-F]{2})*$/;
const blockHash = /^0x[0-9a-fA-F]{64}$/;
const blockNumber = /^0x[0-9a-fA-F]{1,16}$/;
const blockTags = ['latest', 'pending', 'safe', 'finalized', 'earliest'];

function parseHexQuantity(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return `0x${value.toString(16)}`;
  if (typeof value !== 'string' || !hexQuantity.test(value)) {
    throw invalidRequest(name, `${quote(value)} is not a hex quantity (0x…)`);
  }
  const quantity = BigInt(value);
  if (quantity > maxUint64 && uint64Members.has(name.slice(name.lastIndexOf('.') + 1))) {
    throw invalidRequest(name, `${quote(value)} is past 2^64 - 1, the largest the node takes`);
  }
  return `0x${quantity.toString(16)}`;
}

/** A transaction object (`params[0]` or `params[0][i]`), each member checked and named when wrong. */
export function parseSimulationCall(name: string, value: unknown): SimulationCall {
  const tx = paramsObject(name, value, transactionMembers);
  const { data, input } = tx;
  if (data !== undefined && input !== undefined && data !== input) {
    throw invalidRequest(`${name}.data`, 'and input are both given and differ');
  }
  const bytes = data ?? input;
  if (bytes !== undefined && bytes !== null && (typeof bytes !== 'string' || !hexBytes.test(bytes))) {
    throw invalidRequest(`${name}.data`, `${quote(bytes)} is not 0x-prefixed hex bytes`);
  }
  for (const fee of ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'type', 'chainId'] as const) {
    parseHexQuantity(`${name}.${fee}`, tx[fee]);
  }
  const address = (member: 'from' | 'to') =>
    tx[member] === undefined || tx[member] === null ? undefined : parseAddress(`${name}.${member}`, tx[member]);
  const to = address('to');
  if (to === undefined && (typeof bytes !== 'string' || bytes.length <= 2)) {
    throw invalidRequest(`${name}.to`, 'is required (or data to deploy a contract)');
  }
  const gas = parseHexQuantity(`${name}.gas`, tx.gas ?? tx.gasLimit);
  return withoutUndefined({
    from: address('from'),
    to,
    value: parseHexQuantity(`${name}.value`, tx.value),
    data: typeof bytes === 'string' ? bytes.toLowerCase() : undefined,
    gas,
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** A block identifier: a tag, a hex number or a block hash; `latest` when absent. */
export function parseSimulationBlock(name: string, value: unknown): string {
  if (value === undefined || value === null) return 'latest';
  if (typeof value === 'string' && (blockTags.includes(value) || blockNumber.test(value) || blockHash.test(value))) {
    return value.startsWith('0x') ? value.toLowerCase() : value;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return `0x${value.toString(16)}`;
  throw invalidRequest(name, `${quote(value)} is not a block tag (${blockTags.join(', ')}), hex block number or block hash`);
}

/** `[transaction, block?]`: alchemy_simulateAssetChanges; `first` is where they start (1 after a format). */
export function parseSingleParams(params: unknown, first = 0): { calls: SimulationCall[]; block: string } {
  const [tx, block] = positionalParams(params, 1, 2);
  return { calls: [parseSimulationCall(`params[${first}]`, tx)], block: parseSimulationBlock(`params[${first + 1}]`, block) };
}

/** `[[transaction, …], block?]`: the Bundle forms, 1 to 3 transactions run in order. */
export function parseBundleParams(params: unknown, first = 0): { calls: SimulationCall[]; block: string } {
  const [list, block] = positionalParams(params, 1, 2);
  const name = `params[${first}]`;
  if (!Array.isArray(list)) throw invalidRequest(name, 'must be an array of transaction objects');
  if (list.length === 0 || list.length > maxBundleSize) {
    throw invalidRequest(name, `holds ${list.length} transactions; a bundle takes 1 to ${maxBundleSize}`);
  }
  return {
    calls: list.map((tx, i) => parseSimulationCall(`${name}[${i}]`, tx)),
    block: parseSimulationBlock(`params[${first + 1}]`, block),
  };
}

export type ExecutionFormat = 'FLAT' | 'NESTED';
const formats: readonly ExecutionFormat[] = ['FLAT', 'NESTED'];

/**
 * alchemy_simulateExecution's two shapes: alchemy-sdk's `[transaction, block?]` and the API reference's
 * `[format, transaction, block?]` (`FLAT` or `NESTED`); FLAT when no format is given.
 */
export function parseExecutionParams(
  params: unknown,
  bundle: boolean,
): { calls: SimulationCall[]; block: string; format: ExecutionFormat } {
  const list = params === undefined || params === null ? [] : params;
  if (Array.isArray(list) && typeof list[0] === 'string') {
    const [format, ...rest] = list;
    if (!formats.includes(format as ExecutionFormat)) {
      throw invalidRequest('params[0]', `${quote(format)} is not a format (${formats.join(', ')}) nor a transaction object`);
    }
    const parsed = bundle ? parseBundleParams(rest, 1) : parseSingleParams(rest, 1);
    return { ...parsed, format: format as ExecutionFormat };
  }
  return { ...(bundle ? parseBundleParams(params) : parseSingleParams(params)), format: 'FLAT' };
}
