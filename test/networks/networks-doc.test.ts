import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { networkPresets } from '../../src/config/network-presets.ts';

/** docs/networks.md's preset table says what the code's table holds, row for row. */
describe('docs/networks.md', () => {
  const doc = readFileSync(new URL('../../docs/networks.md', import.meta.url), 'utf8');
  const rows = new Map(
    doc
      .split('\n')
      .filter((line) => /^\| [a-z]+ \/ [a-z]+ \|/.test(line))
      .map((line) => {
        const cells = line.split('|').map((cell) => cell.trim());
        return [cells[1]!.replace(' / ', '/'), cells.slice(2, -1)] as const;
      }),
  );

  it('has one row per preset, with its chain id, native symbol, testnet flag, block time, finality, fee model and size', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(networkPresets).sort());
    for (const [key, preset] of Object.entries(networkPresets)) {
      const [chainId, native, testnet, blockTime, finality, feeModel, size] = rows.get(key)!;
      expect(chainId, key).toBe(preset.chainId === undefined ? '–' : String(preset.chainId));
      expect(native, key).toBe(preset.nativeSymbol);
      expect(testnet, key).toBe(preset.testnet ? 'yes' : 'no');
      expect(blockTime, key).toBe(`${preset.blockTimeS} s`);
      expect(finality, key).toBe(`${preset.finality} (depth ${preset.finalityDepth})`);
      expect(feeModel!.split(' ')[0], key).toBe(preset.feeModel);
      expect(size, key).toBe(`${preset.maxTransactionBytes.toLocaleString('en-US')} bytes`);
    }
  });
});

describe("docs/networks.md's 'Point it at real chains' example", () => {
  it('loads as written: ethereum, base and arbitrum mainnets from their presets beside the embedded devnet', () => {
    const page = readFileSync(new URL('../../docs/networks.md', import.meta.url), 'utf8');
    const start = page.indexOf('## Point it at real chains');
    expect(start, "the 'Point it at real chains' section of docs/networks.md").toBeGreaterThan(-1);
    const yaml = /```yaml\n([\s\S]*?)```/.exec(page.slice(start))![1]!;
    const cwd = mkdtempSync(join(tmpdir(), 'blockyard-networks-doc-chains-'));
    try {
      writeFileSync(join(cwd, 'blockyard.yaml'), yaml);
      const chains = loadConfig({ env: {}, cwd }).chains;
      expect(chains.map((chain) => [`${chain.chain}/${chain.network}`, chain.chainId, chain.blockTimeS, chain.feeModel])).toEqual(
        [
          ['ethereum/devnet', 31337, 1, 'eip1559'],
          ['ethereum/mainnet', 1, 12, 'eip1559'],
          ['base/mainnet', 8453, 2, 'op-stack'],
          ['arbitrum/mainnet', 42161, 0.25, 'arbitrum'],
        ],
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
