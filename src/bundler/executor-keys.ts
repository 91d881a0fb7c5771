import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import type { ChainConfig } from '../config/chain-settings.ts';

/** anvil's default accounts #1-#3: the embedded devnet's executors (never #0, the account users send from). */
export const devnetExecutorKeys: readonly Hex[] = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];

const keyPattern = /^0x[0-9a-fA-F]{64}$/;

/**
 * The keys a network's bundler sends from: its `executor_keys_file` (one key per line, # comments),
 * else BLOCKYARD_BUNDLER_KEYS, else (the embedded devnet only) anvil's #1-#3. A bad line names its
 * number, never its content.
 */
export function executorKeysFor(chain: ChainConfig, fromEnvironment: readonly string[]): readonly Hex[] {
  const file = chain.bundler.executorKeysFile;
  if (file) {
    const keys = readFileSync(file, 'utf8')
      .split('\n')
      .map((line, index) => ({ line: line.trim(), number: index + 1 }))
      .filter(({ line }) => line !== '' && !line.startsWith('#'));
    for (const { line, number } of keys) {
      if (!keyPattern.test(line)) throw new Error(`${file} line ${number}: not a private key (0x and 64 hex digits)`);
    }
    return keys.map(({ line }) => line as Hex);
  }
  if (fromEnvironment.length > 0) return fromEnvironment as Hex[];
  return chain.embedded ? devnetExecutorKeys : [];
}
