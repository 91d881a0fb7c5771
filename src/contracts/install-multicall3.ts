import { createTestClient, http } from 'viem';
import { getCode } from 'viem/actions';
import { multicall3Address } from '../chains/public-client.ts';
import { compileContracts } from './compile.ts';

/**
 * Puts our Multicall3 at its canonical address on an anvil devnet (`anvil_setCode`), unless code is
 * already there. Answers whether it installed.
 *
 * @example
 * await installMulticall3(devnet.url);
 */
export async function installMulticall3(rpcUrl: string): Promise<boolean> {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }) });
  const existing = await getCode(client, { address: multicall3Address });
  if (existing !== undefined && existing !== '0x') return false;
  const { Multicall3 } = await compileContracts();
  await client.setCode({ address: multicall3Address, bytecode: Multicall3.deployedBytecode });
  return true;
}
