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

export function parseConfigFlags(args: string[]): ConfigFlags {
  const { values } = parseArgs({ args, options: configFlagOptions, strict: true, allowPositionals: false });
  return values;
}

export function parseStartFlags(args: string[]): ConfigFlags {
  const { values } = parseArgs({ args, options: startFlagOptions, strict: true, allowPositionals: false });
  return values;
}
