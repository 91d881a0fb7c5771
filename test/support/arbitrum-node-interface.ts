import { createTestClient, http, pad, toHex } from 'viem';
import { foundry } from 'viem/chains';
import { compileContracts } from '../../src/contracts/compile.ts';
import { nodeInterfaceAddress } from '../../src/gas/l1-fee/l1-fee-contracts.ts';

/**
 * Makes an anvil answer Arbitrum's NodeInterface at 0xC8 with contracts/ArbitrumNodeInterfaceStandIn.sol,
 * a stand-in (Nitro answers NodeInterface in the node; no real code exists to install), its L1 base fee
 * estimate (slot 0) set. anvil never charges the L1 component: tests add it to the gas used themselves.
 */
export async function installArbitrumNodeInterface(anvilUrl: string, l1BaseFeeEstimateWei: bigint): Promise<void> {
  const { ArbitrumNodeInterfaceStandIn: standIn } = await compileContracts();
  const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  await test.setCode({ address: nodeInterfaceAddress, bytecode: standIn.deployedBytecode });
  await test.setStorageAt({ address: nodeInterfaceAddress, index: 0, value: pad(toHex(l1BaseFeeEstimateWei)) });
}
