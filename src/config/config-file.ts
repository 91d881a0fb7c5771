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
    throw new ConfigError(path, `is not valid YAML ${describeYamlError(error as Error, text)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(path, 'must be a YAML mapping');
  return parsed as Record<string, unknown>;
}

/**
 * Where the parser stopped and why, then the line before (for context) and the offending line, numbered,
 * with a caret under the column: the parser's own message ends with such a frame, which a one-line cut
 * dropped.
 * @example describeYamlError(error, text) // 'at line 4, column 1: Sequence item without - indicator\n    3 |   - chain: ethereum\n    4 |    network: x\n      | ^'
 */
export function describeYamlError(error: Error, text: string): string {
  const at = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
  const reason = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  if (at === undefined) return `: ${reason}`;
  const lines = text.split(/\r?\n/);
  const width = String(at.line).length;
  const numbered = (n: number) => `    ${String(n).padStart(width)} | ${(lines[n - 1] ?? '').slice(0, 200)}`;
  return [
    `at line ${at.line}, column ${at.col}: ${reason}`,
    ...(at.line > 1 ? [numbered(at.line - 1)] : []),
    numbered(at.line),
    `    ${' '.repeat(width)} | ${' '.repeat(Math.max(0, at.col - 1))}^`,
  ].join('\n');
}

/**
 * The YAML parser, loaded only when there is a file to read: most starts and CLI commands have none,
 * and loading it is a tenth of what a one-line admin command takes.
 */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text);
}
