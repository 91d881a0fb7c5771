import { parseAbi } from 'viem';
import { entryPoint06Abi, entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction';

/**
 * Where the ERC-4337 contracts live on every chain that has them (and on the embedded devnet, which
 * `installErc4337Contracts` fills). EntryPoint and SimpleAccountFactory of each version, and for v0.6
 * and v0.7 Blockyard's EIP-7702 account implementations (`contracts/Simple7702AccountV06.sol`,
 * `Simple7702AccountV07.sol`): CREATE2 with salt 0 through the deterministic deployment proxy puts
 * each at its address on any chain.
 */
export const erc4337Addresses = {
  v06: {
    entryPoint: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
    factory: '0x9406Cc6185a346906296840746125a0E44976454',
    /** Blockyard's contracts/Simple7702AccountV06.sol: EOAs delegating to it send v0.6 ops with eip7702Auth. */
    simple7702Account: '0xEE46b832a4e5b1AB40Fc919F1Cc286EF762a1aE1',
  },
  v07: {
    entryPoint: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
    factory: '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985',
    simple7702Account: '0xC143Fe9347eC5fe29173073A219AE20D65EcD945',
  },
  v08: {
    entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
    factory: '0x13E9ed32155810FDbd067D4522C492D6f68E5944',
    /** eth-infinitism's Simple7702Account (0.8.0), the implementation viem's toSimple7702SmartAccount delegates to. */
    simple7702Account: '0xe6Cae83BdE06E4c305530e199D7217f42808555B',
  },
} as const;

export type EntryPointVersion = keyof typeof erc4337Addresses;

// viem's EntryPoint ABIs are typed (functionName, args and results are checked) and equal, item for
// item, to the ABIs of the artifacts we deploy (test/erc4337/contracts/abis.test.ts proves it).

/** EntryPoint v0.6: handleOps, getSenderAddress, getNonce, simulateValidation, balanceOf, depositTo, events, errors. */
export const entryPointV06Abi = entryPoint06Abi;

/** EntryPoint v0.7: handleOps, getSenderAddress, getNonce, getUserOpHash, balanceOf, depositTo, events, errors. */
export const entryPointV07Abi = entryPoint07Abi;

/** EntryPoint v0.8: v0.7's interface, an EIP-712 getUserOpHash and EIP-7702 accounts (the 0x7702 initCode marker). */
export const entryPointV08Abi = entryPoint08Abi;

/** SimpleAccountFactory, the same interface in v0.6, v0.7 and v0.8. */
export const simpleAccountFactoryAbi = parseAbi([
  'function accountImplementation() view returns (address)',
  'function createAccount(address owner, uint256 salt) returns (address ret)',
  'function getAddress(address owner, uint256 salt) view returns (address)',
]);

/** SimpleAccount v0.6: executeBatch takes no values. */
export const simpleAccountV06Abi = parseAbi([
  'function entryPoint() view returns (address)',
  'function owner() view returns (address)',
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, bytes[] func)',
]);

/**
 * SimpleAccount v0.7: executeBatch has a value per call (an empty array means none). Simple7702AccountV07,
 * the implementation an EOA delegates to with EIP-7702, has the same interface.
 */
export const simpleAccountV07Abi = parseAbi([
  'function entryPoint() view returns (address)',
  'function owner() view returns (address)',
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
]);
