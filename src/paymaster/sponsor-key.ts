import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import type { ChainConfig } from '../config/chain-settings.ts';
import { ConfigError } from '../config/config-error.ts';
import type { GasSponsorshipConfig } from '../config/gas-settings.ts';

/** anvil's default account #4: the embedded devnet's sponsor (never #0, the account users send from). */
export const devnetSponsorKey: Hex = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';

const keyPattern = /^0x[0-9a-fA-F]{64}$/;

/**
 * The key that signs sponsorships on a network: `gas.sponsor_key_file` (one key, # comments), else
 * BLOCKYARD_SPONSOR_KEY, else (the embedded devnet only) anvil's #4; undefined when there is none.
 * A bad file names the line, never its content.
 */
export function sponsorKeyFor(chain: ChainConfig, gas: GasSponsorshipConfig): Hex | undefined {
  if (gas.sponsorKeyFile) return readKeyFile(gas.sponsorKeyFile);
  if (gas.sponsorKey) return gas.sponsorKey as Hex;
  return chain.embedded ? devnetSponsorKey : undefined;
}

function readKeyFile(file: string): Hex {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('gas.sponsor_key_file', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const lines = text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'));
  if (lines.length !== 1) throw new ConfigError('gas.sponsor_key_file', `${file} must hold one key, found ${lines.length} lines`);
  const { line, number } = lines[0]!;
  if (!keyPattern.test(line))
    throw new ConfigError('gas.sponsor_key_file', `${file} line ${number}: not a private key (0x and 64 hex digits)`);
  return line as Hex;
}
