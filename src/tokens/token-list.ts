import { readFileSync } from 'node:fs';

/** Logos from a token list (tokenlists.org format), by chain id and contract. */
export interface TokenList {
  logoFor(chainId: number, contract: string): string | null;
  readonly size: number;
}

export const emptyTokenList: TokenList = { logoFor: () => null, size: 0 };

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/**
 * Reads the token list once, at start. A missing or malformed file throws an Error naming the
 * file and the first bad entry: a configured list that silently does nothing would hide the mistake.
 * `ipfs://` logos are rewritten through the IPFS gateway so clients can load them.
 */
export function loadTokenList(path: string, options: { ipfsGateway: string }): TokenList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`token list ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`token list ${path} is not JSON: ${(error as Error).message}`);
  }
  return parseTokenList(parsed, path, options);
}

/** Validates a parsed token list; `source` names it in errors. */
export function parseTokenList(parsed: unknown, source: string, options: { ipfsGateway: string }): TokenList {
  const tokens = (parsed as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(tokens)) throw new Error(`token list ${source} has no "tokens" array`);
  const logos = new Map<string, string>();
  tokens.forEach((token: unknown, index) => {
    const entry = token as { chainId?: unknown; address?: unknown; logoURI?: unknown } | null;
    const where = `token list ${source}: tokens[${index}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${where} is not an object`);
    if (!Number.isSafeInteger(entry.chainId) || (entry.chainId as number) < 1)
      throw new Error(`${where}.chainId is not a chain id`);
    if (typeof entry.address !== 'string' || !addressPattern.test(entry.address))
      throw new Error(`${where}.address is not a 0x-prefixed 40-hex-digit address`);
    if (entry.logoURI === undefined) return;
    if (typeof entry.logoURI !== 'string' || entry.logoURI.length === 0) throw new Error(`${where}.logoURI is not a URI`);
    logos.set(logoKey(entry.chainId as number, entry.address), gatewayUrl(entry.logoURI, options.ipfsGateway));
  });
  return {
    logoFor: (chainId, contract) => logos.get(logoKey(chainId, contract)) ?? null,
    size: logos.size,
  };
}

function logoKey(chainId: number, contract: string): string {
  return `${chainId}:${contract.toLowerCase()}`;
}

function gatewayUrl(uri: string, gateway: string): string {
  if (!uri.startsWith('ipfs://')) return uri;
  const path = uri.slice('ipfs://'.length).replace(/^ipfs\//, '');
  return `${gateway.endsWith('/') ? gateway : `${gateway}/`}${path}`;
}
