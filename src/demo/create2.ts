import { type Address, concat, getContractAddress, type Hex } from 'viem';

/**
 * The deterministic deployment proxy (CREATE2 factory) that anvil, and most chains, have at genesis.
 * Calldata is `salt ++ initCode`; the contract lands at an address that depends on nothing else.
 */
export const create2DeployerAddress: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

export function create2Address(salt: Hex, initCode: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: create2DeployerAddress, salt, bytecode: initCode });
}

export function create2Calldata(salt: Hex, initCode: Hex): Hex {
  return concat([salt, initCode]);
}
