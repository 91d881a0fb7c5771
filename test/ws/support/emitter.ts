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

/** Deploys the emitter (anvil automines) and returns its address. */
export async function deployEmitter(
  anvilUrl: string,
  call: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<Address> {
  const hash = await emitterWallet(anvilUrl).sendTransaction({ data: initCode });
  const receipt = (await call('eth_getTransactionReceipt', [hash])) as { contractAddress: Address };
  return receipt.contractAddress;
}

/** Emits Ping(value) from the emitter; resolves with the transaction hash. */
export function emitPing(anvilUrl: string, emitter: Address, value: bigint): Promise<Hex> {
  return emitterWallet(anvilUrl).sendTransaction({ to: emitter, data: toHex(value, { size: 32 }) });
}
