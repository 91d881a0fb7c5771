import type { ErrorObject } from 'ajv';
import { describeSchemaProblem } from '../core/schema-problem.ts';
import { ConfigError } from './config-error.ts';

/**
 * The validator's first error as a ConfigError naming the setting as the operator gave it: its flag or
 * variable (`origin`), or its path in the YAML file.
 */
export function settingError(error: ErrorObject | undefined, origin: Record<string, string>, configFile?: string) {
  if (!error) return new ConfigError('config', 'is not valid');
  const path = error.instancePath.split('/').filter(Boolean);
  let setting: string;
  const top = path[0];
  if (top === 'chains') {
    setting = `chains${path
      .slice(1)
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')}`;
    if (error.keyword === 'additionalProperties') setting += `.${String(error.params.additionalProperty)}`;
    setting += ` (in ${configFile})`;
  } else if (top === 'limits' || top === 'tracing') {
    const extra = error.keyword === 'additionalProperties' ? [String(error.params.additionalProperty)] : [];
    setting = `${[...path, ...extra].join('.')} (in ${configFile})`;
  } else if (top === 'devnet') {
    setting = origin.block_time_s ?? 'devnet.block_time_s';
  } else if (top === undefined && error.keyword === 'additionalProperties') {
    setting = `${String(error.params.additionalProperty)} (in ${configFile})`;
  } else {
    setting = origin[top ?? ''] ?? top ?? 'config';
  }
  return new ConfigError(setting, settingProblem(error));
}

function settingProblem(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return 'unknown setting';
  if (error.keyword === 'required') return `needs its '${String(error.params.missingProperty)}' setting`;
  return describeSchemaProblem(error);
}
