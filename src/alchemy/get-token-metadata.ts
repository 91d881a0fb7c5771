import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import type { TokenService } from '../tokens/service.ts';
import { parseAddress, positionalParams } from './rpc-params.ts';

/** Alchemy's answer: every field null when the address is not an ERC-20 token. */
export interface TokenMetadataResult {
  decimals: number | null;
  logo: string | null;
  name: string | null;
  symbol: string | null;
}

const unknownToken: TokenMetadataResult = { decimals: null, logo: null, name: null, symbol: null };

/**
 * `alchemy_getTokenMetadata [contract]`: name, symbol and decimals through the token service (its
 * metadata cache, then the chain), the logo from the configured token list.
 */
export async function getTokenMetadata(tokens: TokenService, network: Network, params: unknown): Promise<TokenMetadataResult> {
  const [rawContract] = positionalParams(params, 1, 1);
  const contract = parseAddress('params[0]', rawContract) as Address;
  try {
    const token = await tokens.metadata(network, contract);
    return { decimals: token.decimals, logo: token.logo_url, name: token.name, symbol: token.symbol };
  } catch (error) {
    // No contract there, or one that is not an ERC-20 token.
    if (isAppError(error) && error.code === 'not_found') return { ...unknownToken };
    throw error;
  }
}
