import { type Address, createWalletClient, type Hex, http, keccak256, parseAbi, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

/** anvil's first default account: a well-known development key, funded on every anvil. */
export const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

export const pingAbi = parseAbi(['event Ping(uint256 value)']);
export const pingTopic = keccak256(toHex('Ping(uint256)'));

/**
 * A contract of raw bytecode that emits `Ping(uint256 value)` with the calldata as `value` on any
 * call: CALLDATACOPY to memory, LOG1(0, calldatasize, topic), STOP.
 */
const runtime = `0x366000600037 7f${pingTopic.slice(2)} 36 6000 a1 00`.replaceAll(' ', '');
const runtimeLength = (runtime.length - 2) / 2;
// PUSH1 len, DUP1, PUSH1 11 (this prefix's length), PUSH1 0, CODECOPY, PUSH1 0, RETURN
const initCode = `0x60${runtimeLength.toString(16).padStart(2, '0')}80600b6000396000f3${runtime.slice(2)}` as Hex;

export function emitterWallet(anvilUrl: string) {
  return createWalletClient({ account: devAccount, chain: foundry, transport: http(anvilUrl) });
}

/**
 * Deploys the emitter and returns its address. anvil automines, but may answer the send before the
 * block is in: the receipt is polled (for at most 10 s) rather than read once.
 */
export async function deployEmitter(
  anvilUrl: string,
  call: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<Address> {
  const hash = await emitterWallet(anvilUrl).sendTransaction({ data: initCode });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const receipt = (await call('eth_getTransactionReceipt', [hash])) as { contractAddress: Address } | null;
    if (receipt) return receipt.contractAddress;
    if (Date.now() > deadline) throw new Error(`no receipt for the emitter's deployment ${hash} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Emits Ping(value) from the emitter; resolves with the transaction hash. */
export function emitPing(anvilUrl: string, emitter: Address, value: bigint): Promise<Hex> {
  return emitterWallet(anvilUrl).sendTransaction({ to: emitter, data: toHex(value, { size: 32 }) });
}
