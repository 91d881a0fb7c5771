import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { invalidRequest } from '../core/errors.ts';
import type { ChainCaller } from './chain-caller.ts';
import { paramsObject, parseAddress, positionalParams } from './rpc-params.ts';

const members = ['contract', 'owner', 'spender'] as const;

/**
 * `alchemy_getTokenAllowance [{contract, owner, spender}]`: the ERC-20 `allowance(owner, spender)` at
 * the latest block, as a decimal string (Alchemy's answer). A contract that does not answer it as an
 * ERC-20 token does (no code, or not 32 bytes back) is -32602 naming `contract`; a revert is the node's.
 */
export async function getTokenAllowance(chain: ChainCaller, params: unknown): Promise<string> {
  const [request] = positionalParams(params, 1, 1);
  const fields = paramsObject('params[0]', request, members);
  const [contract, owner, spender] = members.map((name) => {
    if (fields[name] === undefined) throw invalidRequest(name, 'is required');
    return parseAddress(name, fields[name]) as Hex;
  }) as [Hex, Hex, Hex];
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [owner, spender] });
  const answer = await chain('eth_call', [{ to: contract, data }, 'latest']);
  if (typeof answer !== 'string' || answer.length !== 66) {
    throw invalidRequest('contract', `${contract} does not answer allowance(owner, spender) as an ERC-20 token does`);
  }
  return decodeFunctionResult({ abi: erc20Abi, functionName: 'allowance', data: answer as Hex }).toString();
}
