import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundlerErrorCodes } from '../../src/bundler/rpc-errors.ts';
import { errorStatus } from '../../src/core/errors.ts';
import { jsonRpcErrorCodes } from '../../src/jsonrpc/messages.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const rows = doc.split('\n').filter((line) => line.startsWith('| `'));

describe('docs/errors.md', () => {
  it.each(Object.entries(errorStatus))('documents REST code %s with HTTP %i', (code, status) => {
    expect(rows.some((row) => row.startsWith(`| \`${code}\` | ${status} |`))).toBe(true);
  });

  it.each(Object.entries(jsonRpcErrorCodes))('documents JSON-RPC code %s (%i)', (name, code) => {
    expect(rows.some((row) => row.startsWith(`| \`${code}\` | ${name} |`))).toBe(true);
  });

  it.each(Object.entries(bundlerErrorCodes))("documents the bundler's code %s (%i)", (_name, code) => {
    expect(rows.some((row) => row.startsWith(`| \`${code}\` |`)) || doc.includes(`\`${code}\``)).toBe(true);
  });

  it('documents no code that does not exist', () => {
    const known = new Set([
      ...Object.keys(errorStatus),
      ...Object.values(jsonRpcErrorCodes).map(String),
      ...Object.values(bundlerErrorCodes).map(String),
    ]);
    const documented = rows.map((row) => /^\| `([^`]+)`/.exec(row)![1]!);
    expect(documented.filter((code) => !known.has(code))).toEqual([]);
  });
});
