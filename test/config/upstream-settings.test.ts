import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';

describe('upstream settings (docs/upstreams.md)', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-upstreams-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const load = (file: unknown) => {
    writeFileSync(join(cwd, 'blockyard.yaml'), stringify(file));
    return loadConfig({ env: {}, cwd });
  };
  const mainnet = (upstreams: unknown[], extra: Record<string, unknown> = {}) => ({
    chains: [{ chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams, ...extra }],
  });
  const problem = (file: unknown) => {
    try {
      load(file);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  };

  it('reads every upstream setting, in camelCase, with a network lag threshold', () => {
    const config = load(
      mainnet(
        [
          { url: 'http://10.0.0.5:8545', name: 'own-node', archive: false, recent_blocks: 256 },
          {
            url: 'https://eth-mainnet.g.alchemy.com/v2/KEY',
            name: 'alchemy',
            rps: 25,
            cu_per_s: 330,
            cu_table: 'alchemy',
            methods: { deny: ['trace_*'] },
            get_logs_max_range: 2000,
          },
          { url: 'https://mainnet.infura.io/v3/KEY', name: 'infura', tier: 'fallback', cu_table: 'infura' },
        ],
        { max_lag_blocks: 5 },
      ),
    );
    const network = config.chains[0]!;
    expect(network.maxLagBlocks).toBe(5);
    expect(network.upstreams[0]).toMatchObject({ name: 'own-node', archive: false, recentBlocks: 256 });
    expect(network.upstreams[1]).toMatchObject({
      rps: 25,
      cuPerS: 330,
      cuTable: 'alchemy',
      methods: { deny: ['trace_*'] },
      getLogsMaxRange: 2000,
    });
    expect(network.upstreams[2]).toMatchObject({ tier: 'fallback', cuTable: 'infura' });
    expect(config.readyNetworks).toEqual(['ethereum/mainnet']);
  });

  it('knows the public Solana clusters by their genesis hash', () => {
    const config = load({
      chains: [{ chain: 'solana', network: 'mainnet', kind: 'solana', upstreams: [{ url: 'https://s.example' }] }],
    });
    expect(config.chains[0]!.genesisHash).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    expect(config.chains[0]!.maxLagBlocks).toBe(25);
  });

  it.each([
    [mainnet([{ url: 'http://a', tier: 'backup' }]), 'chains[0].upstreams[0].tier'],
    [mainnet([{ url: 'http://a', cu_table: 'ankr' }]), 'chains[0].upstreams[0].cu_table'],
    [mainnet([{ url: 'http://a', rps: 0 }]), 'chains[0].upstreams[0].rps'],
    [mainnet([{ url: 'http://a', methods: { allow: ['eth call'] } }]), 'chains[0].upstreams[0].methods.allow[0]'],
    [mainnet([{ url: 'http://a', archive: 'no' }]), 'chains[0].upstreams[0].archive'],
    [
      mainnet([
        { url: 'http://a', name: 'x' },
        { url: 'http://b', name: 'x' },
      ]),
      "two upstreams are named 'x'",
    ],
    [
      { ...mainnet([{ url: 'http://a' }]), readiness: { networks: ['base/mainnet'] } },
      "'base/mainnet' is not a configured network",
    ],
  ])('refuses %j, naming %s', (file, named) => {
    expect(problem(file)).toContain(named);
  });

  it('takes the networks readiness needs, by chain/network', () => {
    const config = load({
      chains: [
        { chain: 'ethereum', network: 'mainnet', chain_id: 1, upstreams: [{ url: 'http://a' }] },
        { chain: 'base', network: 'mainnet', chain_id: 8453, upstreams: [{ url: 'http://b' }] },
      ],
      readiness: { networks: ['base/mainnet'] },
    });
    expect(config.readyNetworks).toEqual(['base/mainnet']);
  });
});
