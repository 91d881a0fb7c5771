import { parseAbi } from 'viem';

/** What the wallets API reads from SimpleAccountFactory (v0.6 and v0.7 have the same shape). */
export const simpleAccountFactoryAbi = parseAbi([
  'function getAddress(address owner, uint256 salt) view returns (address)',
  'function createAccount(address owner, uint256 salt) returns (address)',
]);

export const entryPointNonceAbi = parseAbi(['function getNonce(address sender, uint192 key) view returns (uint256)']);

/** keccak256('AccountDeployed(bytes32,address,address,address)'), the same in EntryPoint v0.6 and v0.7. */
export const accountDeployedTopic = '0xd51a9c61267aa6196961883ecf5ff2da6619c37dac0fa92122513fb32c032d2d';
