import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { ConfigFlags } from '../../src/config/setting-sources.ts';

/**
 * A fresh working directory for each test of the enclosing describe block, with loadConfig run in it.
 * Call at the top of a describe block: it registers the directory's beforeEach/afterEach there.
 */
export function configDir() {
  let cwd = '';
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-config-'));
  });
  afterEach(() => {
    rmSync(cwd, { recursive: true, force: true });
  });

  return {
    cwd: () => cwd,
    writeYaml(content: unknown, name = 'blockyard.yaml'): string {
      const path = join(cwd, name);
      writeFileSync(path, typeof content === 'string' ? content : stringify(content));
      return path;
    },
    load(env: Record<string, string> = {}, flags: ConfigFlags = {}) {
      return loadConfig({ flags, env, cwd });
    },
  };
}

/** The ConfigError `run` throws; fails the test when it throws nothing or something else. */
export function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but loadConfig succeeded');
}
