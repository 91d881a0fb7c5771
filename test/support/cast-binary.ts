import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Foundry's `cast` from npm (`@foundry-rs/cast` ships it in `@foundry-rs/cast-linux-amd64`), or the
 * binary `CAST_BINARY` names; undefined when neither is there (its tests are then skipped and say so).
 */
export function castBinary(): string | undefined {
  if (process.env.CAST_BINARY) return process.env.CAST_BINARY;
  try {
    const packageJson = createRequire(import.meta.url).resolve('@foundry-rs/cast-linux-amd64/package.json');
    const binary = join(dirname(packageJson), 'bin', 'cast');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
