import { accessSync, chmodSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** `@foundry-rs/anvil` ships its binary in one optional dependency per platform. */
const platformPackages: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/**
 * Absolute path of the anvil binary from the platform package (not `npx anvil`, which adds a wrapper
 * process between us and anvil). npm 11 skips the wrapper's postinstall, so nothing else sets it up.
 */
export function resolveAnvilBinary(): string {
  const key = `${process.platform}-${process.arch}`;
  const packageName = platformPackages[key];
  if (!packageName) {
    throw new Error(`The embedded devnet (anvil) has no binary for ${key}; configure an upstream chain instead`);
  }
  const packageJson = resolvePackageJson(packageName);
  if (!packageJson) {
    throw new Error(
      `The embedded devnet needs the npm package ${packageName} (an optional dependency of @foundry-rs/anvil); ` +
        'reinstall without --omit=optional',
    );
  }
  const binary = join(dirname(packageJson), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary) || !statSync(binary).isFile()) {
    throw new Error(`The npm package ${packageName} is installed but has no binary at ${binary}; reinstall it`);
  }
  ensureExecutable(binary);
  return binary;
}

function resolvePackageJson(packageName: string): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(`${packageName}/package.json`);
  } catch {
    // Not hoisted to the top of node_modules: look beside the wrapper package that depends on it.
  }
  try {
    const wrapper = require.resolve('@foundry-rs/anvil/package.json');
    return createRequire(wrapper).resolve(`${packageName}/package.json`);
  } catch {
    return undefined;
  }
}

/** npm does not always keep the executable bit of files in a tarball. */
function ensureExecutable(binary: string): void {
  if (process.platform === 'win32') return;
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    try {
      chmodSync(binary, statSync(binary).mode | 0o111);
    } catch (error) {
      throw new Error(`The anvil binary at ${binary} is not executable and chmod failed`, { cause: error });
    }
  }
}
