import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';

describe("a network's bundler settings", () => {
  const cwd = mkdtempSync(join(tmpdir(), 'blockyard-config-bundler-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const entryPointsOf = (bundler: object) => {
    writeFileSync(join(cwd, 'blockyard.yaml'), stringify({ chains: [{ embedded: true, bundler }] }));
    return loadConfig({ flags: {}, env: {}, cwd }).chains[0]!.bundler.entryPoints;
  };
  const refusal = (bundler: object) => {
    try {
      entryPointsOf(bundler);
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };

  it('entry_points: versions the bundler knows, once each, in the order given (default 0.7, 0.8, 0.6)', () => {
    expect(entryPointsOf({ entry_points: ['0.8', '0.7'] })).toEqual(['0.8', '0.7']);
    expect(entryPointsOf({})).toEqual(['0.7', '0.8', '0.6']);
    expect(refusal({ entry_points: ['0.5'] }).message).toBe(
      'invalid setting chains[0].bundler.entry_points[0] (in blockyard.yaml): must be one of 0.6, 0.7, 0.8',
    );
    expect(refusal({ entry_points: [] }).setting).toMatch(/^chains\[0\]\.bundler\.entry_points/);
    expect(refusal({ entry_points: ['0.7', '0.7'] }).setting).toMatch(/^chains\[0\]\.bundler\.entry_points/);
  });
});
