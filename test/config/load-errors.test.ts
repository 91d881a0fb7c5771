import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingError } from '../../src/config/setting-error.ts';
import { configDir, configError } from './config-dir.ts';

describe('loadConfig: a bad value throws a ConfigError naming the setting', () => {
  const { cwd, writeYaml, load } = configDir();
  const upstreams = [{ url: 'http://127.0.0.1:8545' }];

  it('PORT=abc', () => {
    const error = configError(() => load({ PORT: 'abc' }));
    expect(error.setting).toBe('PORT');
    expect(error.message).toMatch(/PORT/);
  });

  it('PORT=70000', () => {
    expect(configError(() => load({ PORT: '70000' })).message).toMatch(/PORT.*65535/);
  });

  it('LOG_LEVEL=loud, listing the allowed levels', () => {
    const error = configError(() => load({ LOG_LEVEL: 'loud' }));
    expect(error.setting).toBe('LOG_LEVEL');
    expect(error.message).toMatch(/debug/);
  });

  it('in words, not the validator text: an unknown chain kind lists the kinds, a missing field is named', () => {
    writeYaml({ chains: [{ chain: 'ethereum', network: 'x', kind: 'bitcoin', upstreams }] });
    expect(configError(() => load()).message).toBe(
      'invalid setting chains[0].kind (in blockyard.yaml): must be one of evm, solana',
    );
    const missing = { keyword: 'required', instancePath: '/chains/0', schemaPath: '', params: { missingProperty: 'chain' } };
    expect(settingError(missing, {}, 'blockyard.yaml').message).toBe(
      "invalid setting chains[0] (in blockyard.yaml): needs its 'chain' setting",
    );
    expect(configError(() => load({ PORT: '70000' })).message).toBe('invalid setting PORT: must be at most 65535');
  });

  it('a database or Redis URL that does not parse is named, without echoing its password', () => {
    // It was a bare "Invalid URL" from the database driver, naming no setting.
    const database = configError(() => load({ DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:99999/db' }));
    expect(database.setting).toBe('DATABASE_URL');
    expect(database.message).toMatch(/^invalid setting DATABASE_URL: is not a valid URL: .*65535/);
    expect(database.message).not.toContain('s3cret');
    const flag = configError(() => load({}, { 'database-url': 'postgresql://u:pa#ss@db/x' }));
    expect(flag.setting).toBe('--database-url');
    expect(flag.message).not.toContain('pa#ss');
    const redis = configError(() => load({ REDIS_URL: 'redis://:s3cret@[::1/0' }));
    expect(redis.setting).toBe('REDIS_URL');
    expect(redis.message).not.toContain('s3cret');
    expect(load({ DATABASE_URL: 'postgres://u:p%23ss@127.0.0.1:5432/db' }).databaseUrl).toBe(
      'postgres://u:p%23ss@127.0.0.1:5432/db',
    );
  });

  it('Infinity in a flag or variable is refused: the validator coerced it to a number its ranges let through', () => {
    expect(configError(() => load({ PORT: 'Infinity' })).message).toBe('invalid setting PORT: must be a finite number');
    expect(configError(() => load({ BLOCKYARD_SHUTDOWN_GRACE: '-Infinity' })).setting).toBe('BLOCKYARD_SHUTDOWN_GRACE');
    expect(configError(() => load({}, { 'shutdown-grace': 'Infinity' })).setting).toBe('--shutdown-grace');
    expect(configError(() => load({ BLOCKYARD_BLOCK_TIME: 'Infinity' })).setting).toBe('BLOCKYARD_BLOCK_TIME');
    expect(configError(() => load({ BLOCKYARD_COMPRESS_MIN_BYTES: 'Infinity' })).setting).toBe('BLOCKYARD_COMPRESS_MIN_BYTES');
    writeYaml({ webhooks: { timeout_s: 'Infinity' } });
    expect(configError(() => load()).message).toBe(
      'invalid setting webhooks.timeout_s (in blockyard.yaml): must be a finite number',
    );
    writeYaml({
      chains: [
        {
          chain: 'ethereum',
          network: 'x',
          chain_id: 1,
          upstreams: [{ url: 'http://127.0.0.1:8545', timeout_ms: '-Infinity' }],
        },
      ],
    });
    expect(configError(() => load()).message).toBe(
      'invalid setting chains[0].upstreams[0].timeout_ms (in blockyard.yaml): must be a finite number',
    );
  });

  it('a number written as text must be decimal: 0x10, 1e3 and 0b11 are refused, 8080, 0.25 and " 9 " taken', () => {
    expect(configError(() => load({ PORT: '0x10' })).message).toBe(
      "invalid setting PORT: must be a number in decimal digits (like 8080 or 0.5), not '0x10'",
    );
    expect(configError(() => load({}, { 'block-time': '1e3' })).setting).toBe('--block-time');
    expect(configError(() => load({ BLOCKYARD_BLOCK_TIME: '0b11' })).setting).toBe('BLOCKYARD_BLOCK_TIME');
    expect(configError(() => load({ BLOCKYARD_COMPRESS_MIN_BYTES: '1_000' })).setting).toBe('BLOCKYARD_COMPRESS_MIN_BYTES');
    writeYaml({ webhooks: { timeout_s: '0x10' } });
    expect(configError(() => load()).setting).toBe('webhooks.timeout_s (in blockyard.yaml)');
    // A YAML number is YAML's to read (0x10 unquoted is 16 there); text is held to decimal.
    writeYaml('port: 0x10\nwebhooks:\n  timeout_s: " 9 "\n');
    const config = load({ BLOCKYARD_BLOCK_TIME: '0.25', BLOCKYARD_SHUTDOWN_GRACE: '+3' });
    expect([config.port, config.webhooks.timeoutMs, config.chains[0]?.blockTimeS, config.shutdownGraceS]).toEqual([
      16, 9_000, 0.25, 3,
    ]);
  });

  it('--port x', () => {
    const error = configError(() => load({}, { port: 'x' }));
    expect(error.setting).toBe('--port');
    expect(error.message).toMatch(/--port/);
  });

  it('BLOCKYARD_ROLES=api,foo', () => {
    const error = configError(() => load({ BLOCKYARD_ROLES: 'api,foo' }));
    expect(error.setting).toBe('BLOCKYARD_ROLES');
    expect(error.message).toMatch(/indexer/);
  });

  it('a chain of kind bitcoin', () => {
    writeYaml({ chains: [{ chain: 'bitcoin', network: 'mainnet', chain_id: 1, kind: 'bitcoin', upstreams }] });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^chains\[0\]\.kind/);
    expect(error.message).toMatch(/evm, solana/);
  });

  it('an unknown top-level key', () => {
    writeYaml({ port: 8080, colour: 'blue' });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^colour\b/);
    expect(error.message).toMatch(/unknown setting/);
  });

  it('an unknown key in a chain', () => {
    writeYaml({ chains: [{ chain: 'ethereum', network: 'sepolia', chain_id: 11155111, upstreams, colour: 'blue' }] });
    expect(configError(() => load()).setting).toMatch(/^chains\[0\]\.colour/);
  });

  it('a chain without upstreams', () => {
    writeYaml({ chains: [{ chain: 'ethereum', network: 'sepolia', chain_id: 11155111 }] });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^chains\[0\]\.upstreams/);
    expect(error.message).toMatch(/required/);
  });

  it('an EVM chain without chain_id that is not a built-in network', () => {
    writeYaml({ chains: [{ chain: 'zora', network: 'mainnet', upstreams }] });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^chains\[0\]\.chain_id/);
    expect(error.message).toMatch(/required/);
  });

  it('dev_methods on a mainnet', () => {
    writeYaml({ chains: [{ chain: 'ethereum', network: 'mainnet', chain_id: 1, dev_methods: true, upstreams }] });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^chains\[0\]\.dev_methods/);
    expect(error.message).toMatch(/testnet/);
  });

  it('a chain/network listed twice', () => {
    writeYaml({
      chains: [
        { chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams },
        { chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams },
      ],
    });
    const error = configError(() => load());
    expect(error.setting).toMatch(/^chains\[1\]\.network/);
    expect(error.message).toMatch(/ethereum\/mainnet is listed twice/);
  });

  it('YAML that does not parse', () => {
    const path = writeYaml('chains: [unclosed\nport: : 3\n');
    const error = configError(() => load());
    expect(error.setting).toBe(path);
    expect(error.message).toMatch(/not valid YAML/);
  });

  it('a config file that does not exist', () => {
    const missing = join(cwd(), 'nope.yaml');
    const fromFlag = configError(() => load({}, { config: missing }));
    expect(fromFlag.setting).toBe(missing);
    expect(fromFlag.message).toMatch(/ENOENT/);
    expect(configError(() => load({ BLOCKYARD_CONFIG: 'nope.yaml' })).setting).toBe(missing);
  });
});
