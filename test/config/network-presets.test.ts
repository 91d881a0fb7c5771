import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';
import { networkPresets } from '../../src/config/network-presets.ts';

describe('network presets (docs/networks.md)', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-presets-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const upstreams = [{ url: 'http://127.0.0.1:8545' }];
  const load = (entry: Record<string, unknown>) => {
    writeFileSync(join(cwd, 'blockyard.yaml'), stringify({ chains: [{ upstreams, ...entry }] }));
    return loadConfig({ env: {}, cwd }).chains[0]!;
  };

  it('fills a base/mainnet entry of only chain, network and upstreams from the preset', () => {
    const base = load({ chain: 'base', network: 'mainnet' });
    expect(base).toMatchObject({
      chainId: 8453,
      kind: 'evm',
      testnet: false,
      nativeSymbol: 'ETH',
      blockTimeS: 2,
      finality: 'tags',
      feeModel: 'op-stack',
      maxTransactionBytes: 131_072,
      multicall3: '0xcA11bde05977b3631167028862bE2a173976CA11',
      indexer: { enabled: false, startBlock: undefined },
    });
    expect(base.erc4337.entryPointV07).toBe('0x0000000071727De22E5E9d8BAf0edAc6f37da032');
  });

  it('knows each fee model and the chains that differ', () => {
    expect(load({ chain: 'arbitrum', network: 'sepolia' })).toMatchObject({
      chainId: 421_614,
      testnet: true,
      feeModel: 'arbitrum',
      blockTimeS: 0.25,
    });
    expect(load({ chain: 'polygon', network: 'amoy' })).toMatchObject({
      chainId: 80_002,
      nativeSymbol: 'POL',
      feeModel: 'polygon',
      minPriorityFeeWei: 25_000_000_000n,
    });
    expect(load({ chain: 'ethereum', network: 'hoodi' })).toMatchObject({
      chainId: 560_048,
      feeModel: 'eip1559',
      blockTimeS: 12,
    });
    expect(load({ chain: 'solana', network: 'devnet' })).toMatchObject({ kind: 'solana', nativeSymbol: 'SOL', testnet: true });
  });

  it('lets the entry override every preset value', () => {
    const custom = load({
      chain: 'optimism',
      network: 'mainnet',
      chain_id: 10,
      block_time_s: 1,
      finality: 'depth',
      finality_depth: 10,
      fee_model: 'eip1559',
      testnet: true,
      native_symbol: 'OETH',
      max_transaction_bytes: 64_000,
      min_priority_fee_wei: '7',
      multicall3: '0x0000000000000000000000000000000000000abc',
      indexer: { enabled: true, start_block: 100 },
    });
    expect(custom).toMatchObject({
      blockTimeS: 1,
      finality: 'depth',
      finalityDepth: 10,
      feeModel: 'eip1559',
      testnet: true,
      nativeSymbol: 'OETH',
      maxTransactionBytes: 64_000,
      minPriorityFeeWei: 7n,
      multicall3: '0x0000000000000000000000000000000000000abc',
      indexer: { enabled: true, startBlock: 100 },
    });
  });

  it('still needs the chain id of a chain it does not know, and names the setting', () => {
    let error: unknown;
    try {
      load({ chain: 'zora', network: 'mainnet' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toMatch(/^chains\[0\]\.chain_id/);
    expect((error as Error).message).toMatch(/not a built-in network/);
    expect(load({ chain: 'zora', network: 'mainnet', chain_id: 7777777 })).toMatchObject({
      chainId: 7777777,
      blockTimeS: 12,
      feeModel: 'eip1559',
    });
  });

  it('refuses a chain id or start block no JS number holds exactly (YAML 1e30), naming the setting', () => {
    expect(() => load({ chain: 'zora', network: 'mainnet', chain_id: 1e30 })).toThrow(/chains\[0\]\.chain_id .*at most/);
    expect(() => load({ chain: 'zora', network: 'mainnet', chain_id: 2 ** 53 })).toThrow(/chain_id/);
    expect(() => load({ chain: 'base', network: 'mainnet', indexer: { start_block: 1e20 } })).toThrow(/start_block/);
    expect(load({ chain: 'zora', network: 'mainnet', chain_id: Number.MAX_SAFE_INTEGER }).chainId).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a fee model or finality it does not know', () => {
    expect(() => load({ chain: 'base', network: 'mainnet', fee_model: 'zk' })).toThrow(/fee_model/);
    expect(() => load({ chain: 'base', network: 'mainnet', finality: 'soon' })).toThrow(/finality/);
  });

  it('covers every network the issue names, each with a chain id where EVM', () => {
    expect(Object.keys(networkPresets).sort()).toEqual(
      [
        'arbitrum/mainnet',
        'arbitrum/sepolia',
        'base/mainnet',
        'base/sepolia',
        'ethereum/hoodi',
        'ethereum/mainnet',
        'ethereum/sepolia',
        'optimism/mainnet',
        'optimism/sepolia',
        'polygon/amoy',
        'polygon/mainnet',
        'solana/devnet',
        'solana/mainnet',
      ].sort(),
    );
    for (const preset of Object.values(networkPresets)) {
      if (preset.kind === 'evm') expect(preset.chainId).toBeGreaterThan(0);
    }
  });
});
