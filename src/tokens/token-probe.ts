import { type Address, encodeFunctionData, erc20Abi, type PublicClient } from 'viem';
import { erc721InterfaceId, erc1155InterfaceId } from '../chains/interface-ids.ts';
import { multicallRaw } from './multicall.ts';
import type { RawCall, RawResult } from './raw-call.ts';
import { decodeTokenText, decodeWord } from './token-text.ts';

export type TokenProbe =
  | {
      readonly kind: 'erc20';
      readonly name: string;
      readonly symbol: string;
      readonly decimals: number;
      readonly totalSupply: bigint;
    }
  | { readonly kind: 'not-erc20'; readonly reason: string };

const erc165Abi = [
  {
    type: 'function',
    name: 'supportsInterface',
    stateMutability: 'view',
    inputs: [{ name: 'interfaceId', type: 'bytes4' }],
    outputs: [{ type: 'bool' }],
  },
] as const;

/** Any address works for the balanceOf probe; ERC-721 contracts revert for the zero address, so not that one. */
const probeHolder = '0x000000000000000000000000000000000000dEaD';

const probeCalls = {
  erc721: encodeFunctionData({ abi: erc165Abi, functionName: 'supportsInterface', args: [erc721InterfaceId] }),
  erc1155: encodeFunctionData({ abi: erc165Abi, functionName: 'supportsInterface', args: [erc1155InterfaceId] }),
  decimals: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }),
  totalSupply: encodeFunctionData({ abi: erc20Abi, functionName: 'totalSupply' }),
  balanceOf: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [probeHolder] }),
  name: encodeFunctionData({ abi: erc20Abi, functionName: 'name' }),
  symbol: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }),
};
const probeOrder = Object.keys(probeCalls) as (keyof typeof probeCalls)[];

/**
 * Decides, with one multicall at `blockNumber`, whether each contract behaves as an ERC-20 token,
 * and reads its name, symbol, decimals and total supply.
 */
export async function probeTokens(
  client: PublicClient,
  contracts: readonly Address[],
  blockNumber: bigint,
): Promise<TokenProbe[]> {
  const calls: RawCall[] = contracts.flatMap((target) => probeOrder.map((key) => ({ target, callData: probeCalls[key] })));
  const results = await multicallRaw(client, calls, blockNumber);
  return contracts.map((_, index) => {
    const slice = results.slice(index * probeOrder.length, (index + 1) * probeOrder.length);
    return judgeToken(
      Object.fromEntries(probeOrder.map((key, i) => [key, slice[i]!])) as Record<keyof typeof probeCalls, RawResult>,
    );
  });
}

/** The rules, apart from the chain reads: which answers make an ERC-20. */
export function judgeToken(answers: Record<keyof typeof probeCalls, RawResult>): TokenProbe {
  if (says(answers.erc721)) return { kind: 'not-erc20', reason: 'it is an ERC-721 NFT contract (ERC-165), see /v1/nfts' };
  if (says(answers.erc1155))
    return { kind: 'not-erc20', reason: 'it is an ERC-1155 multi-token contract (ERC-165), see /v1/nfts' };
  const decimals = word(answers.decimals);
  if (decimals === undefined) return { kind: 'not-erc20', reason: missing('decimals()', answers.decimals) };
  if (decimals > 255n) return { kind: 'not-erc20', reason: 'decimals() does not return a uint8' };
  const totalSupply = word(answers.totalSupply);
  if (totalSupply === undefined) return { kind: 'not-erc20', reason: missing('totalSupply()', answers.totalSupply) };
  if (word(answers.balanceOf) === undefined)
    return { kind: 'not-erc20', reason: missing('balanceOf(address)', answers.balanceOf) };
  return {
    kind: 'erc20',
    name: text(answers.name),
    symbol: text(answers.symbol),
    decimals: Number(decimals),
    totalSupply,
  };
}

function word(result: RawResult): bigint | undefined {
  return result.success ? decodeWord(result.returnData) : undefined;
}

function says(result: RawResult): boolean {
  return word(result) === 1n;
}

/** name() and symbol() are optional in ERC-20: a token without them gets an empty string. */
function text(result: RawResult): string {
  return (result.success ? decodeTokenText(result.returnData) : undefined) ?? '';
}

function missing(call: string, result: RawResult): string {
  return result.success ? `${call} returns no uint256` : `${call} reverts`;
}
