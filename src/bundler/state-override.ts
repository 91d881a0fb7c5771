import { type Address, getAddress, type Hex, isAddress, isHex, type StateOverride, toHex } from 'viem';
import { invalidParams } from './rpc-errors.ts';

type StateOverrideEntry = StateOverride[number];
/**
 * State overrides put together, one entry per address (viem and the nodes refuse two): a later list's
 * code, balance and nonce win, storage slots are merged (a later value wins). Full `state`
 * replacements are not used here and are left out.
 */
export function mergeStateOverrides(...lists: StateOverride[]): StateOverride {
  const byAddress = new Map<
    string,
    { address: Address; code?: Hex; balance?: bigint; nonce?: number; slots: Map<string, Hex> }
  >();
  for (const entry of lists.flat()) {
    const key = entry.address.toLowerCase();
    const merged = byAddress.get(key) ?? { address: getAddress(entry.address), slots: new Map<string, Hex>() };
    if (entry.code !== undefined) merged.code = entry.code;
    if (entry.balance !== undefined) merged.balance = entry.balance;
    if (entry.nonce !== undefined) merged.nonce = entry.nonce;
    for (const diff of entry.stateDiff ?? []) merged.slots.set(diff.slot.toLowerCase(), diff.value);
    byAddress.set(key, merged);
  }
  return [...byAddress.values()].map(({ slots, ...entry }) => ({
    ...Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)),
    address: entry.address,
    ...(slots.size > 0 ? { stateDiff: [...slots].map(([slot, value]) => ({ slot: slot as Hex, value })) } : {}),
  }));
}

/**
 * A client's state override (eth_estimateUserOperationGas's third parameter, in eth_call's form:
 * `{address: {balance, nonce, code, stateDiff}}`) as viem's; absent is none. A full `state`
 * replacement is refused: the overrides here are merged with the bundler's own, slot by slot.
 */
export function parseStateOverride(input: unknown): StateOverride {
  if (input === undefined || input === null) return [];
  const refuse = (what: string) => invalidParams(`stateOverride${what}`, 'stateOverride');
  if (typeof input !== 'object' || Array.isArray(input)) throw refuse(' must be an object of addresses');
  const quantity = (value: unknown, where: string) => {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw refuse(`${where} must be a 0x hex quantity`);
    return BigInt(value);
  };
  return Object.entries(input).map(([address, entry]) => {
    if (!isAddress(address, { strict: false })) throw refuse(`: ${JSON.stringify(address)} is not an address`);
    if (typeof entry !== 'object' || entry === null) throw refuse(`.${address} must be an object`);
    const { balance, nonce, code, stateDiff, state, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest)[0] ?? (state === undefined ? undefined : 'state');
    if (unknown !== undefined) throw refuse(`.${address}.${unknown} is not taken (balance, nonce, code, stateDiff)`);
    const parsed: StateOverride[number] = { address: getAddress(address) };
    if (balance !== undefined) parsed.balance = quantity(balance, `.${address}.balance`);
    if (nonce !== undefined) {
      // An account nonce is a uint64 (EIP-2681), and viem carries it as a number: past 2^53 it would change.
      const value = quantity(nonce, `.${address}.nonce`);
      if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw refuse(`.${address}.nonce must be at most 2^53-1`);
      parsed.nonce = Number(value);
    }
    if (code !== undefined) {
      // Whole bytes: an odd number of hex digits is no code a node takes (it would refuse the call with its own error).
      if (typeof code !== 'string' || !isHex(code) || code.length % 2 !== 0)
        throw refuse(`.${address}.code must be 0x hex bytes (an even number of hex digits)`);
      parsed.code = code;
    }
    if (stateDiff !== undefined) {
      if (typeof stateDiff !== 'object' || stateDiff === null) throw refuse(`.${address}.stateDiff must be an object of slots`);
      const words = Object.entries(stateDiff);
      if (
        !words.every(
          ([slot, value]) =>
            isHex(slot) && slot.length === 66 && typeof value === 'string' && isHex(value) && value.length === 66,
        )
      )
        throw refuse(`.${address}.stateDiff must map 32-byte 0x slots to 32-byte 0x values`);
      parsed.stateDiff = words.map(([slot, value]) => ({ slot: slot as Hex, value: value as Hex }));
    }
    return parsed;
  });
}

/** viem's state override in JSON-RPC's form (eth_call's third parameter, debug_traceCall's `stateOverrides`). */
export function rpcStateOverride(override: StateOverride): Record<Address, Record<string, unknown>> {
  return Object.fromEntries(
    override.map((entry) => [
      getAddress(entry.address),
      {
        ...(entry.code !== undefined ? { code: entry.code } : {}),
        ...(entry.balance !== undefined ? { balance: toHex(entry.balance) } : {}),
        ...(entry.nonce !== undefined ? { nonce: toHex(entry.nonce) } : {}),
        ...(entry.state ? { state: Object.fromEntries(entry.state.map((diff) => [diff.slot, diff.value])) } : {}),
        ...(entry.stateDiff ? { stateDiff: Object.fromEntries(entry.stateDiff.map((diff) => [diff.slot, diff.value])) } : {}),
      },
    ]),
  );
}

/** One account in a `prestateTracer` answer. */
interface PrestateAccount {
  balance?: Hex;
  nonce?: number;
  code?: Hex;
  storage?: Record<Hex, Hex>;
}

const zeroWord = toHex(0n, { size: 32 });

/**
 * A `prestateTracer` answer in diff mode (`{pre, post}`) as the state override that puts the call's
 * effects in place: each changed account's new code, balance, nonce and storage. A slot in `pre` that
 * `post` leaves out was cleared (the tracer drops zeroes). `ignore`: accounts left out (the caller's).
 */
export function overrideOfStateDiff(
  diff: { pre: Record<string, PrestateAccount>; post: Record<string, PrestateAccount> },
  ignore: readonly Address[] = [],
): StateOverride {
  const ignored = new Set(ignore.map((address) => address.toLowerCase()));
  const addresses = new Set([...Object.keys(diff.post), ...Object.keys(diff.pre)].map((address) => address.toLowerCase()));
  const lower = (accounts: Record<string, PrestateAccount>) =>
    new Map(Object.entries(accounts).map(([address, account]) => [address.toLowerCase(), account]));
  const pre = lower(diff.pre);
  const post = lower(diff.post);
  const override: StateOverride = [];
  for (const address of addresses) {
    if (ignored.has(address)) continue;
    const after = post.get(address) ?? {};
    const slots = new Map<string, Hex>();
    for (const slot of Object.keys(pre.get(address)?.storage ?? {})) slots.set(slot.toLowerCase(), zeroWord);
    for (const [slot, value] of Object.entries(after.storage ?? {})) slots.set(slot.toLowerCase(), value);
    const entry: StateOverrideEntry = { address: getAddress(address) };
    if (after.code !== undefined) entry.code = after.code;
    if (after.balance !== undefined) entry.balance = BigInt(after.balance);
    if (after.nonce !== undefined) entry.nonce = Number(after.nonce);
    if (slots.size > 0) entry.stateDiff = [...slots].map(([slot, value]) => ({ slot: slot as Hex, value }));
    if (Object.keys(entry).length > 1) override.push(entry);
  }
  return override;
}
