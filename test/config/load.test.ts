import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.ts';
import { configDir, configError } from './config-dir.ts';

describe('loadConfig', () => {
  const { cwd, writeYaml, load } = configDir();

  const upstreams = [{ url: 'http://127.0.0.1:8545' }];

  describe('defaults', () => {
    it('with nothing set: loopback, port 8080, ./.blockyard, development, one embedded devnet', () => {
      const config = load();
      expect(config.host).toBe('127.0.0.1');
      expect(config.port).toBe(8080);
      expect(config.dataDir).toBe(join(cwd(), '.blockyard'));
      expect(config.mode).toBe('development');
      expect(config.logLevel).toBe('info');
      expect(config.roles).toEqual(['api', 'indexer', 'webhooks', 'bundler']);
      expect(config.databaseUrl).toBeUndefined();
      expect(config.redisUrl).toBeUndefined();
      expect(config.adminToken).toBeUndefined();
      expect(config.configFile).toBeUndefined();
      expect(config.chains).toHaveLength(1);
      expect(config.chains[0]).toMatchObject({
        chain: 'ethereum',
        network: 'devnet',
        chainId: 31337,
        kind: 'evm',
        testnet: true,
        embedded: true,
        devMethods: true,
        blockTimeS: 1,
        upstreams: [],
      });
    });

    it('reads the environment variables of the design', () => {
      const config = load({
        PORT: '9000',
        BLOCKYARD_DATA_DIR: 'state',
        DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
        REDIS_URL: 'redis://127.0.0.1:6379',
        BLOCKYARD_ADMIN_TOKEN: 'a-long-enough-admin-token',
        LOG_LEVEL: 'warn',
        BLOCKYARD_ROLES: 'api, indexer',
      });
      expect(config.port).toBe(9000);
      expect(config.dataDir).toBe(join(cwd(), 'state'));
      expect(config.databaseUrl).toBe('postgres://u@127.0.0.1:5432/db');
      expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
      expect(config.adminToken).toBe('a-long-enough-admin-token');
      expect(config.logLevel).toBe('warn');
      expect(config.roles).toEqual(['api', 'indexer']);
    });

    it('an empty environment variable counts as unset', () => {
      expect(load({ PORT: '', LOG_LEVEL: '' })).toMatchObject({ port: 8080, logLevel: 'info' });
    });
  });

  describe('precedence: flags > environment > YAML > defaults', () => {
    it('for the port', () => {
      const config = writeYaml({ port: 3 });
      expect(load({ PORT: '2', BLOCKYARD_CONFIG: config }, { port: '1' }).port).toBe(1);
      expect(load({ PORT: '2', BLOCKYARD_CONFIG: config }).port).toBe(2);
      expect(load({ BLOCKYARD_CONFIG: config }).port).toBe(3);
      rmSync(config);
      expect(load().port).toBe(8080);
    });

    it('for the log level', () => {
      const config = writeYaml({ log_level: 'error' });
      expect(load({ LOG_LEVEL: 'warn' }, { 'log-level': 'debug', config }).logLevel).toBe('debug');
      expect(load({ LOG_LEVEL: 'warn' }, { config }).logLevel).toBe('warn');
      expect(load({}, { config }).logLevel).toBe('error');
      rmSync(config);
      expect(load().logLevel).toBe('info');
    });

    it('for the config file: --config > BLOCKYARD_CONFIG > ./blockyard.yaml', () => {
      writeYaml({ port: 1001 });
      const fromEnv = writeYaml({ port: 1002 }, 'env.yaml');
      const fromFlag = writeYaml({ port: 1003 }, 'flag.yaml');
      expect(load({ BLOCKYARD_CONFIG: fromEnv }, { config: fromFlag })).toMatchObject({ port: 1003, configFile: fromFlag });
      expect(load({ BLOCKYARD_CONFIG: fromEnv })).toMatchObject({ port: 1002, configFile: fromEnv });
      expect(load()).toMatchObject({ port: 1001, configFile: join(cwd(), 'blockyard.yaml') });
    });
  });

  describe('shutdown_grace_s', () => {
    it('is 10 s by default; flag > BLOCKYARD_SHUTDOWN_GRACE > YAML', () => {
      expect(load().shutdownGraceS).toBe(10);
      const config = writeYaml({ shutdown_grace_s: 3 });
      expect(load({ BLOCKYARD_SHUTDOWN_GRACE: '2.5' }, { 'shutdown-grace': '1', config }).shutdownGraceS).toBe(1);
      expect(load({ BLOCKYARD_SHUTDOWN_GRACE: '2.5' }, { config }).shutdownGraceS).toBe(2.5);
      expect(load({}, { config }).shutdownGraceS).toBe(3);
      expect(load({ BLOCKYARD_SHUTDOWN_GRACE: '0' }).shutdownGraceS).toBe(0);
    });

    it('refuses a negative or non-numeric value, naming where it came from', () => {
      expect(configError(() => load({ BLOCKYARD_SHUTDOWN_GRACE: '-1' })).setting).toBe('BLOCKYARD_SHUTDOWN_GRACE');
      expect(configError(() => load({}, { 'shutdown-grace': 'soon' })).setting).toBe('--shutdown-grace');
    });
  });

  describe('cors_origins', () => {
    it('is empty (CORS off) by default', () => {
      expect(load().corsOrigins).toEqual([]);
    });

    it('takes a YAML list of origins, normalized as browsers send them', () => {
      writeYaml({ cors_origins: ['https://App.example.com:443/', 'http://localhost:5173'] });
      expect(load().corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    });

    it('takes "*" alone, in YAML or BLOCKYARD_CORS_ORIGINS, and the variable comma-separated over YAML', () => {
      writeYaml({ cors_origins: '*' });
      expect(load().corsOrigins).toEqual(['*']);
      expect(load({ BLOCKYARD_CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins).toEqual([
        'https://a.example',
        'https://b.example',
      ]);
      expect(load({ BLOCKYARD_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    });

    it('refuses what is not an origin, and "*" among others, naming the setting', () => {
      for (const value of ['https://app.example/path', 'app.example', 'ftp://app.example', 'https://app.example?x=1']) {
        const error = configError(() => load({ BLOCKYARD_CORS_ORIGINS: value }));
        expect(error.setting).toBe('BLOCKYARD_CORS_ORIGINS');
        expect(error.message).toMatch(/not an origin/);
      }
      writeYaml({ cors_origins: ['*', 'https://app.example'] });
      const error = configError(() => load());
      expect(error.setting).toMatch(/^cors_origins \(in .*blockyard\.yaml\)$/);
      expect(error.message).toMatch(/alone/);
    });
  });

  describe('trust_proxy and jwt_audience', () => {
    it('default to no trusted proxy and the audience "blockyard"', () => {
      const config = load();
      expect(config.trustProxy).toEqual([]);
      expect(config.jwtAudience).toBe('blockyard');
    });

    it('take a YAML list or BLOCKYARD_TRUST_PROXY comma-separated, and BLOCKYARD_JWT_AUDIENCE', () => {
      writeYaml({ trust_proxy: ['10.0.0.0/8', '::1'], jwt_audience: 'my-app' });
      expect(load()).toMatchObject({ trustProxy: ['10.0.0.0/8', '::1'], jwtAudience: 'my-app' });
      expect(load({ BLOCKYARD_TRUST_PROXY: '127.0.0.1, 192.168.0.0/16', BLOCKYARD_JWT_AUDIENCE: 'other' })).toMatchObject({
        trustProxy: ['127.0.0.1', '192.168.0.0/16'],
        jwtAudience: 'other',
      });
    });

    it('refuses an entry that is not an address or CIDR range, naming the setting and the entry', () => {
      const error = configError(() => load({ BLOCKYARD_TRUST_PROXY: '127.0.0.1, 10.0.0.0/33' }));
      expect(error.setting).toBe('BLOCKYARD_TRUST_PROXY');
      expect(error.message).toMatch(/'10\.0\.0\.0\/33': the prefix length must be 0 to 32/);
      writeYaml({ trust_proxy: ['proxy.internal'] });
      expect(configError(() => load()).message).toMatch(/'proxy\.internal' is not an IPv4 or IPv6 address/);
    });
  });

  describe('compress_min_bytes', () => {
    it('is 2,048 by default; BLOCKYARD_COMPRESS_MIN_BYTES > YAML; 0 turns compression off', () => {
      expect(load().compressMinBytes).toBe(2048);
      writeYaml({ compress_min_bytes: 0 });
      expect(load().compressMinBytes).toBe(0);
      expect(load({ BLOCKYARD_COMPRESS_MIN_BYTES: '512' }).compressMinBytes).toBe(512);
    });

    it('refuses a negative or non-integer value, naming where it came from', () => {
      expect(configError(() => load({ BLOCKYARD_COMPRESS_MIN_BYTES: '-1' })).setting).toBe('BLOCKYARD_COMPRESS_MIN_BYTES');
      expect(configError(() => load({ BLOCKYARD_COMPRESS_MIN_BYTES: 'big' })).setting).toBe('BLOCKYARD_COMPRESS_MIN_BYTES');
    });
  });

  describe('--join', () => {
    it('takes the joined data directory as its own, and any free port unless one is set', () => {
      const config = load({}, { join: 'running' });
      expect(config.join).toBe(true);
      expect(config.dataDir).toBe(join(cwd(), 'running'));
      expect(config.port).toBe(0);
      expect(load({ PORT: '9000' }, { join: 'running' }).port).toBe(9000);
      expect(load({ BLOCKYARD_JOIN: 'running', BLOCKYARD_DATA_DIR: join(cwd(), 'running') }).dataDir).toBe(
        join(cwd(), 'running'),
      );
      expect(load().join).toBe(false);
    });

    it('names both settings when another data directory is also given, and refuses --demo', () => {
      const other = configError(() => load({ BLOCKYARD_DATA_DIR: '/elsewhere' }, { join: 'running' }));
      expect(other.setting).toBe('--join');
      expect(other.message).toContain('BLOCKYARD_DATA_DIR names another data directory (/elsewhere)');
      const demo = configError(() => load({}, { join: 'running', demo: true }));
      expect(demo.message).toContain('cannot go with --demo');
    });
  });

  it('reads ./blockyard.yaml from the working directory when present', () => {
    writeYaml({ host: '0.0.0.0', mode: 'production', data_dir: '/var/lib/blockyard' });
    const config = load();
    expect(config.configFile).toBe(join(cwd(), 'blockyard.yaml'));
    expect(config.host).toBe('0.0.0.0');
    expect(config.mode).toBe('production');
    expect(config.dataDir).toBe('/var/lib/blockyard');
  });

  it('returns a deeply frozen config', () => {
    const config = load();
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.chains as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (config.chains[0] as { chainId: number }).chainId = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.chains[0]!.indexer as { enabled: boolean }).enabled = false;
    }).toThrow(TypeError);
    expect(() => {
      (config.roles as string[])[0] = 'bundler';
    }).toThrow(TypeError);
    expect(config.port).toBe(8080);
    expect(config.chains[0]!.chainId).toBe(31337);
  });

  describe('chains', () => {
    it('a chains: list replaces the embedded devnet', () => {
      writeYaml({
        chains: [
          { chain: 'ethereum', network: 'sepolia', chain_id: 11155111, upstreams },
          { chain: 'solana', network: 'mainnet', kind: 'solana', upstreams },
        ],
      });
      const { chains } = load();
      expect(chains.map((chain) => `${chain.chain}/${chain.network}`)).toEqual(['ethereum/sepolia', 'solana/mainnet']);
      expect(chains.some((chain) => chain.embedded)).toBe(false);
      expect(chains[0]).toMatchObject({ chainId: 11155111, kind: 'evm', testnet: true, devMethods: false, upstreams });
      expect(chains[1]).toMatchObject({ kind: 'solana', testnet: false, nativeSymbol: 'SOL' });
    });

    it('keeps the embedded devnet when the list has an entry with embedded: true', () => {
      writeYaml({ chains: [{ embedded: true }, { chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams }] });
      const { chains } = load();
      expect(chains).toHaveLength(2);
      expect(chains[0]).toMatchObject({ chain: 'ethereum', network: 'devnet', chainId: 31337, embedded: true, devMethods: true });
      expect(chains[1]).toMatchObject({ chain: 'ethereum', network: 'mainnet', chainId: 1, embedded: false, testnet: false });
    });
  });
});

// loadConfig compiles the schema without validating it (a start-up cost for every command): it is checked here.
it('the settings schema is valid JSON Schema', () => {
  const ajv = new Ajv({ strict: true });
  expect(ajv.validateSchema(settingsSchema), JSON.stringify(ajv.errors)).toBe(true);
  expect(() => ajv.compile(settingsSchema)).not.toThrow();
});
