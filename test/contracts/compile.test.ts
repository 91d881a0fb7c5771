import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileContracts, compileContractsIn, contractNames } from '../../src/contracts/compile.ts';

const sourcesDir = new URL('../../contracts/', import.meta.url).pathname;

describe('compileContracts', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'blockyard-compile-'));
  const cacheDir = join(scratch, 'cache');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('compiles every contract to an ABI, creation code and runtime code', async () => {
    const artifacts = await compileContracts();
    for (const name of contractNames) {
      const { abi, bytecode, deployedBytecode } = artifacts[name];
      expect(abi.length, name).toBeGreaterThan(3);
      expect(bytecode, name).toMatch(/^0x(?:[0-9a-f]{2})+$/);
      expect(deployedBytecode, name).toMatch(/^0x(?:[0-9a-f]{2})+$/);
      // The creation code carries the runtime code (plus the constructor).
      expect(bytecode.length, name).toBeGreaterThan(deployedBytecode.length);
    }
    expect(artifacts.Multicall3.abi.some((item) => item.type === 'function' && item.name === 'aggregate3')).toBe(true);
  });

  it('shares one compile between concurrent callers', async () => {
    const [first, second] = await Promise.all([compileContracts(), compileContracts()]);
    expect(second).toBe(first);
  });

  it('pays the compile once: a second compile reads the disk cache, identical', async () => {
    const places = { contractsDir: sourcesDir, cacheDir };
    const coldStart = performance.now();
    const cold = await compileContractsIn(places);
    const coldMs = performance.now() - coldStart;
    expect(readdirSync(places.cacheDir).filter((file) => file.endsWith('.json'))).toHaveLength(1);

    const warmStart = performance.now();
    const warm = await compileContractsIn(places);
    const warmMs = performance.now() - warmStart;
    expect(warm).toEqual(cold);
    expect(warm).not.toBe(cold);
    expect(warmMs).toBeLessThan(coldMs / 5);
    expect(warm).toEqual(await compileContracts());
  }, 120_000);

  it('keys the cache by the sources: a changed source compiles again', async () => {
    // The same sources elsewhere hit the cache the previous test wrote: the key is the content, not the place.
    const contractsDir = join(scratch, 'changed');
    copyTree(sourcesDir, contractsDir);
    const before = await compileContractsIn({ contractsDir, cacheDir });
    expect(before).toEqual(await compileContracts());
    const token = join(contractsDir, 'DemoToken.sol');
    writeFileSync(
      token,
      `${readFileSync(token, 'utf8')}\ncontract Extra { function one() external pure returns (uint256) { return 1; } }\n`,
    );
    const after = await compileContractsIn({ contractsDir, cacheDir });
    expect(readdirSync(cacheDir).filter((file) => file.endsWith('.json'))).toHaveLength(2);
    expect(after.DemoToken.abi).toEqual(before.DemoToken.abi);
    expect(after.DemoNft).toEqual(before.DemoNft);
    expect((after as unknown as Record<string, unknown>).Extra).toBeDefined();
  }, 120_000);

  it("throws solc's formatted message on a compile error", async () => {
    const contractsDir = join(scratch, 'broken');
    copyTree(sourcesDir, contractsDir);
    writeFileSync(
      join(contractsDir, 'Broken.sol'),
      'pragma solidity ^0.8.20;\ncontract Broken { function f() external { undefinedThing(); } }\n',
    );
    await expect(compileContractsIn({ contractsDir, cacheDir: join(scratch, 'broken-cache') })).rejects.toThrow(
      /Solidity compilation failed:[\s\S]*Undeclared identifier[\s\S]*Broken\.sol/,
    );
  }, 120_000);
});

function copyTree(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(from)) copyFileSync(join(from, file), join(to, file));
}
