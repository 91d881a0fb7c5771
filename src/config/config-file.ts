import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.ts';

/** `blockyard.yaml` in the working directory, when there is one. */
export function defaultConfigFile(cwd: string): string | undefined {
  return existsSync(resolve(cwd, 'blockyard.yaml')) ? 'blockyard.yaml' : undefined;
}

/** The YAML file's top-level mapping (empty for an empty file). */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(path, `is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(path, 'must be a YAML mapping');
  return parsed as Record<string, unknown>;
}

/**
 * The YAML parser, loaded only when there is a file to read: most starts and CLI commands have none,
 * and loading it is a tenth of what a one-line admin command takes.
 */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text);
}
