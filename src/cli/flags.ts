import { parseArgs } from 'node:util';
import type { ConfigFlags } from '../config/setting-sources.ts';

/** The flags every command that reads the config accepts. */
export const configFlagOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  'database-url': { type: 'string' },
  'redis-url': { type: 'string' },
  'log-level': { type: 'string' },
  mode: { type: 'string' },
  roles: { type: 'string' },
  'block-time': { type: 'string' },
} as const;

/** `start` alone also takes `--demo`, `--shutdown-grace` and `--join`. */
const startFlagOptions = {
  ...configFlagOptions,
  demo: { type: 'boolean' },
  'shutdown-grace': { type: 'string' },
  join: { type: 'string' },
} as const;

/** `migrate` also takes `--dry-run` (list what is pending, change nothing) and `--help`. */
const migrateFlagOptions = {
  ...configFlagOptions,
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseMigrateFlags(args: string[]): { flags: ConfigFlags; dryRun: boolean; help: boolean } {
  const { values } = parseArgs({ args, options: migrateFlagOptions, strict: true, allowPositionals: false });
  const { 'dry-run': dryRun = false, help = false, ...flags } = values;
  return { flags, dryRun, help };
}

export function parseConfigFlags(args: string[]): ConfigFlags {
  const { values } = parseArgs({ args, options: configFlagOptions, strict: true, allowPositionals: false });
  return values;
}

export function parseStartFlags(args: string[]): ConfigFlags {
  const { values } = parseArgs({ args, options: startFlagOptions, strict: true, allowPositionals: false });
  return values;
}

/** `backup` takes `--out FILE`, `restore` takes `--in FILE`; both read the config for the database and the data directory. */
const backupFlagOptions = {
  'data-dir': configFlagOptions['data-dir'],
  config: configFlagOptions.config,
  'database-url': configFlagOptions['database-url'],
  out: { type: 'string' },
  in: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseBackupFlags(
  args: string[],
  fileFlag: 'out' | 'in',
): { flags: ConfigFlags; file: string | undefined; help: boolean } {
  const { values } = parseArgs({ args, options: backupFlagOptions, strict: true, allowPositionals: false });
  const { out, in: input, help = false, ...flags } = values;
  const other = fileFlag === 'out' ? input : out;
  if (other !== undefined) {
    const wrong = fileFlag === 'out' ? '--in' : '--out';
    throw Object.assign(new Error(`${wrong} is not an option of this command (it takes --${fileFlag} FILE)`), {
      code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
    });
  }
  return { flags, file: fileFlag === 'out' ? out : input, help };
}
