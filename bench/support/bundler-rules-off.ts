// A second Blockyard for bench/bundler.ts, with its bundler's ERC-7562 rules off (bundler.safe_mode
// false), as Alto must run on anvil: the same build and defaults as `npm start`, in a data directory of
// its own (its own embedded Postgres), with one chain entry, ethereum/devnet on the first service's
// anvil (so all three bundlers share one chain), and one executor of its own: anvil #4.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { type BlockyardService, startBlockyardService } from './blockyard-service.ts';

/** anvil's account #4. */
export const rulesOffExecutor = { index: 4, key: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' as Hex };

export async function startRulesOffBlockyard(options: {
  workDir: string;
  anvilUrl: string;
  cpuProfile: boolean;
}): Promise<BlockyardService> {
  mkdirSync(options.workDir, { recursive: true });
  const keysFile = join(options.workDir, 'executor-keys');
  writeFileSync(keysFile, `${rulesOffExecutor.key}\n`, { mode: 0o600 });
  return startBlockyardService({
    workDir: options.workDir,
    upstream: { url: options.anvilUrl },
    chainSettings: {
      block_time_s: 1,
      dev_methods: true,
      bundler: { enabled: true, safe_mode: false, executor_keys_file: keysFile },
    },
    cpuProfile: options.cpuProfile,
  });
}
