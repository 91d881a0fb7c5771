import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { getAddress, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ChainRegistry, Network } from '../../src/chains/registry.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { Context } from '../../src/context/context.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { startPaymasters } from '../../src/paymaster/start-paymasters.ts';
import { devnetPaymasters } from './support.ts';

const otherKey = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as const; // anvil #5
const sepolia = {
  chain: 'ethereum',
  network: 'sepolia',
  chain_id: 11155111,
  upstreams: [{ url: 'http://127.0.0.1:1' }],
};
const paymasterV07 = '0x00000000000000000000000000000000000fee07';

describe('the sponsor key and the paymasters in the config', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-sponsor-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));
  const load = (yaml: Record<string, unknown>, env: Record<string, string> = {}) => {
    writeFileSync(join(cwd, 'blockyard.yaml'), stringify(yaml));
    return loadConfig({ env, cwd });
  };
  const setupsOf = (config: ReturnType<typeof load>, index = 0) =>
    paymasterSetupsOf({ config: config.chains[index]! } as Pick<Network, 'config'>, config);

  it('the embedded devnet: anvil #4 and the computed addresses; deposit warning 1 ETH by default', () => {
    const config = loadConfig({ env: {}, cwd });
    expect(config.gas).toEqual({
      sponsorKeyFile: undefined,
      sponsorKey: undefined,
      depositWarningWei: parseEther('1'),
      sponsorshipCaps: {
        free: { usdPerDay: '10', usdTotal: '100' },
        growth: { usdPerDay: '1000', usdTotal: null },
        enterprise: { usdPerDay: null, usdTotal: null },
      },
    });
    const setups = setupsOf(config);
    expect(setups['0.6']?.address).toBe(devnetPaymasters.v06);
    expect(setups['0.7']?.address).toBe(devnetPaymasters.v07);
    expect(setups['0.7']?.signer.address).toBe(privateKeyToAccount(devnetSponsorKey).address);
  });

  it('a configured network: the addresses its erc4337 names, signed by BLOCKYARD_SPONSOR_KEY', () => {
    const config = load(
      { chains: [{ ...sepolia, erc4337: { paymaster_v07: paymasterV07 } }], gas: { deposit_warning_wei: '5' } },
      { BLOCKYARD_SPONSOR_KEY: otherKey },
    );
    expect(config.chains[0]?.erc4337.paymasterV07).toBe(paymasterV07);
    expect(config.gas.depositWarningWei).toBe(5n);
    const setups = setupsOf(config);
    expect(setups['0.6']).toBeUndefined();
    expect(setups['0.7']).toMatchObject({ version: '0.7', address: getAddress(paymasterV07) });
    expect(setups['0.7']?.signer.address).toBe(privateKeyToAccount(otherKey).address);
  });

  it('no key, no paymaster: a configured network without a sponsor key has none', () => {
    const config = load({ chains: [{ ...sepolia, erc4337: { paymaster_v07: paymasterV07 } }] });
    expect(setupsOf(config)).toEqual({});
  });

  it('gas.sponsor_key_file: one key, relative to the YAML file; a bad file names the line, never the content', () => {
    writeFileSync(join(cwd, 'sponsor'), `# the gas sponsor\n${otherKey}\n`);
    const config = load({
      chains: [{ ...sepolia, erc4337: { paymaster_v07: paymasterV07 } }],
      gas: { sponsor_key_file: 'sponsor' },
    });
    expect(config.gas.sponsorKeyFile).toBe(join(cwd, 'sponsor'));
    expect(setupsOf(config)['0.7']?.signer.address).toBe(privateKeyToAccount(otherKey).address);

    writeFileSync(join(cwd, 'sponsor'), `\n0xnot-a-key-${otherKey.slice(2, 20)}\n`);
    const error = (() => {
      try {
        setupsOf(config);
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error('expected an error');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `invalid setting gas.sponsor_key_file: ${join(cwd, 'sponsor')} line 2: not a private key (0x and 64 hex digits)`,
    );
    expect(error.message).not.toContain(otherKey.slice(2, 20));
  });

  it('refuses both a key file and BLOCKYARD_SPONSOR_KEY, a malformed key, and unknown gas settings', () => {
    expect(() => load({ gas: { sponsor_key_file: 'sponsor' } }, { BLOCKYARD_SPONSOR_KEY: otherKey })).toThrow(
      /invalid setting BLOCKYARD_SPONSOR_KEY: gas.sponsor_key_file .* also names a sponsor key; give one of them/,
    );
    expect(() => load({}, { BLOCKYARD_SPONSOR_KEY: '0x1234' })).toThrow(/invalid setting BLOCKYARD_SPONSOR_KEY/);
    expect(() => load({ gas: { sponsor_key: otherKey } })).toThrow(/gas.sponsor_key .*unknown setting|unknown setting/);
    expect(() => load({ gas: { deposit_warning_wei: '1.5' } })).toThrow(/gas/);
    expect(() => load({ chains: [{ ...sepolia, erc4337: { paymaster_v07: '0x12' } }] })).toThrow(/paymaster_v07/);
  });

  it('the key never reaches the logs of the start', async () => {
    const config = load(
      { chains: [{ ...sepolia, erc4337: { paymaster_v07: paymasterV07 } }] },
      { BLOCKYARD_SPONSOR_KEY: otherKey },
    );
    let logged = '';
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _encoding, done) {
          logged += String(chunk);
          done();
        },
      }),
    );
    const cleanups: (() => unknown)[] = [];
    const ctx = {
      config,
      logger,
      metrics: { registry: new Registry() },
      shutdown: { add: (_name: string, cleanup: () => unknown) => cleanups.push(cleanup) },
    } as unknown as Context;
    // An upstream that answers nothing: every read fails (and is logged at debug).
    const network = {
      config: config.chains[0]!,
      upstream: { send: async () => '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"down"}}' },
    } as unknown as Network;
    const started = startPaymasters(ctx, { list: () => [network] } as unknown as ChainRegistry);
    await started.get('ethereum/sepolia')?.deposits.refresh();
    for (const cleanup of cleanups) await cleanup();
    expect(logged).toContain('gas sponsorship paymasters');
    expect(logged).toContain('paymaster deposit unknown');
    expect(logged).toContain(privateKeyToAccount(otherKey).address);
    expect(logged.toLowerCase()).not.toContain(otherKey.slice(2).toLowerCase());
  });
});
