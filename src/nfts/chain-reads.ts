import { type Address, type PublicClient, parseAbi } from 'viem';
import { erc721InterfaceId, erc1155InterfaceId } from '../chains/interface-ids.ts';
import { AppError } from '../core/errors.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import { substituteTokenId } from './metadata/token-uri.ts';

const nftAbi = parseAbi([
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function uri(uint256 id) view returns (string)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function totalSupply() view returns (uint256)',
  'function contractURI() view returns (string)',
]);

export type ReadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** True when the failure is the transport's (upstream down, timeout), not the contract's answer. */
function isTransportFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 10; current = (current as Error).cause, depth++) {
    const name = (current as Error).name;
    if (name === 'UpstreamError' || name === 'AppError' || name === 'ChainReadTimeout') return true;
  }
  return false;
}

function revertReason(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 10; current = (current as Error).cause, depth++) {
    const reason = (current as { reason?: unknown }).reason;
    if (typeof reason === 'string' && reason !== '') return reason.slice(0, 200);
  }
  return undefined;
}

function unavailable(cause: unknown): AppError {
  return new AppError('service_unavailable', "the chain's upstream is unavailable; retry with exponential backoff", { cause });
}

/** Reads from contracts over one network, each call bounded in time. */
/**
 * The 404 of an address that holds no NFT contract, with why in Alchemy's words: no code at all
 * (NOT_A_CONTRACT) or code that ERC-165 reports as neither standard (NO_SUPPORTED_NFT_STANDARD).
 */
export class NotAnNftContractError extends AppError {
  constructor(
    readonly tokenType: 'NOT_A_CONTRACT' | 'NO_SUPPORTED_NFT_STANDARD',
    message: string,
  ) {
    super('not_found', message);
  }
}

export function createChainReads(client: PublicClient, timeoutMs: number) {
  async function bounded<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('chain read timed out'), { name: 'ChainReadTimeout' })), timeoutMs);
    });
    try {
      return await Promise.race([promise, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A view call whose revert (or missing function) is a value; an unreachable chain is a 503. */
  async function read<T>(contract: Address, functionName: string, args: readonly unknown[] = []): Promise<ReadResult<T>> {
    try {
      const value = await bounded(
        client.readContract({ address: contract, abi: nftAbi, functionName, args } as Parameters<
          PublicClient['readContract']
        >[0]),
      );
      return { ok: true, value: value as T };
    } catch (error) {
      if (isTransportFailure(error)) throw unavailable(error);
      const reason = revertReason(error);
      return { ok: false, reason: `${functionName}(${args.join(', ')}) reverted${reason ? `: ${reason}` : ''}` };
    }
  }

  return {
    read,

    /** The contract's standard by ERC-165; 404 when there is no code or it is neither ERC-721 nor ERC-1155. */
    async detectStandard(contract: Address, where: string): Promise<NftStandard> {
      let code: string | undefined;
      try {
        code = await bounded(client.getCode({ address: contract }));
      } catch (error) {
        throw unavailable(error);
      }
      if (!code || code === '0x') throw new NotAnNftContractError('NOT_A_CONTRACT', `no contract at ${contract} on ${where}`);
      const [is721, is1155] = await Promise.all([
        read<boolean>(contract, 'supportsInterface', [erc721InterfaceId]),
        read<boolean>(contract, 'supportsInterface', [erc1155InterfaceId]),
      ]);
      if (is721.ok && is721.value) return 'ERC721';
      if (is1155.ok && is1155.value) return 'ERC1155';
      throw new NotAnNftContractError(
        'NO_SUPPORTED_NFT_STANDARD',
        `${contract} on ${where} is not an NFT contract: ERC-165 supportsInterface reports neither ERC-721 nor ERC-1155`,
      );
    },

    /** `tokenURI(id)` (ERC-721) or `uri(id)` with `{id}` substituted (ERC-1155). */
    async tokenUri(contract: Address, standard: NftStandard, tokenId: bigint): Promise<ReadResult<string>> {
      if (standard === 'ERC721') return read<string>(contract, 'tokenURI', [tokenId]);
      const uri = await read<string>(contract, 'uri', [tokenId]);
      return uri.ok ? { ok: true, value: substituteTokenId(uri.value, tokenId) } : uri;
    },
  };
}

export type ChainReads = ReturnType<typeof createChainReads>;
