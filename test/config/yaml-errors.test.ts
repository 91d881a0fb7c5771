import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';
import { cliEnv, runCli } from '../support/cli.ts';

/**
 * A settings file that does not parse: the message names the line and column and shows the offending
 * line (after the one before it) with a caret under the column. The parser's frame used to be cut off
 * with everything after the first line of its message.
 */
describe('a YAML settings file that does not parse (issue 35, item 8)', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-yaml-'));
  });
  afterEach(() => {
    rmSync(cwd, { recursive: true, force: true });
  });

  function messageFor(text: string): string {
    writeFileSync(join(cwd, 'blockyard.yaml'), text);
    try {
      loadConfig({ flags: {}, env: {}, cwd });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error('expected a ConfigError');
  }

  it('a mis-indented key: the line, the column, the line before and the offending one, a caret under the column', () => {
    const message = messageFor('port: 8080\nchains:\n  - chain: ethereum\n   network: mainnet\n');
    expect(message).toBe(
      [
        `invalid setting ${join(cwd, 'blockyard.yaml')}: is not valid YAML at line 4, column 1: Sequence item without - indicator`,
        '    3 |   - chain: ethereum',
        '    4 |    network: mainnet',
        '      | ^',
      ].join('\n'),
    );
  });

  it('a key nested in a compact mapping: the caret is under the column the parser names', () => {
    const message = messageFor('port: 8080\nchains:\n  - chain: ethereum\n     network: mainnet\n');
    const [first, ...frame] = message.split('\n');
    expect(first).toMatch(/is not valid YAML at line 3, column 12: Nested mappings are not allowed in compact mappings$/);
    expect(frame).toEqual(['    2 | chains:', '    3 |   - chain: ethereum', `      | ${' '.repeat(11)}^`]);
  });

  it('an error on line 1 shows that line alone', () => {
    const message = messageFor('port: [8080\n');
    const [first, ...frame] = message.split('\n');
    expect(first).toMatch(/is not valid YAML at line \d+, column \d+: \S/);
    expect(frame[0]).toMatch(/^ {4}\d \| /);
    expect(frame.at(-1)).toMatch(/^ {6}\| +\^$/);
  });

  it('blockyard start prints the whole message on stderr and exits 2', async () => {
    writeFileSync(join(cwd, 'blockyard.yaml'), 'port: 8080\nroles: api\nport: 8081\n');
    const result = await runCli(['start'], {
      env: cliEnv({ BLOCKYARD_DATA_DIR: join(cwd, 'data'), PORT: '0' }),
      cwd,
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'is not valid YAML at line 3, column 1: Map keys must be unique\n    2 | roles: api\n    3 | port: 8081\n      | ^\n',
    );
  }, 40_000);
});
