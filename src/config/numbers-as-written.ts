import { ConfigError } from './config-error.ts';
import type { Settings } from './schema.ts';

/** A number written as text (a flag, a variable, a quoted YAML value): decimal digits, a sign, a fraction. */
const decimalText = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

/**
 * The validator coerces text to a number with `+text`, which takes more than a person means by a
 * number: "Infinity" passed every range check (PORT=Infinity, BLOCKYARD_SHUTDOWN_GRACE=-Infinity, a
 * shutdown timer of 1 ms), and PORT=0x10, `--block-time 1e3` or `timeout_s: "0b11"` were read as 16,
 * 1000 and 3. Every number in `settings` must be finite, and one that was text in `written` (the
 * settings before validation) must have been written in decimal.
 */
export function refuseOddNumbers(
  settings: Settings,
  written: Record<string, unknown>,
  origin: Record<string, string>,
  configFile: string | undefined,
): void {
  const visit = (value: unknown, asWritten: unknown, path: string, name: () => string): void => {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new ConfigError(name(), 'must be a finite number');
      if (typeof asWritten === 'string' && !decimalText.test(asWritten)) {
        throw new ConfigError(name(), `must be a number in decimal digits (like 8080 or 0.5), not '${asWritten}'`);
      }
    } else if (Array.isArray(value)) {
      const items = Array.isArray(asWritten) ? asWritten : [];
      for (const [index, item] of value.entries()) {
        visit(item, items[index], `${path}[${index}]`, () => `${path}[${index}] (in ${configFile})`);
      }
    } else if (value && typeof value === 'object') {
      const members = asWritten && typeof asWritten === 'object' ? (asWritten as Record<string, unknown>) : {};
      for (const [key, item] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        // The top-level settings and devnet.block_time_s (--block-time) are named by where they came from.
        const source = path === '' ? origin[key] : at === 'devnet.block_time_s' ? origin.block_time_s : undefined;
        visit(item, members[key], at, () => source ?? `${at} (in ${configFile})`);
      }
    }
  };
  visit(settings, written, '', () => 'settings');
}
