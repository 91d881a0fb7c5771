import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';

const docPath = new URL('../../docs/upstreams.md', import.meta.url);

/** The example of docs/upstreams.md loads as written: every setting it shows exists and means what the page says. */
describe('docs/upstreams.md: the full example', () => {
  it('loads, with each upstream and network setting as the page describes it', () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(readFileSync(docPath, 'utf8'))?.[1];
    expect(example).toBeDefined();
    const cwd = mkdtempSync(join(tmpdir(), 'blockyard-upstreams-doc-'));
    try {
      writeFileSync(join(cwd, 'blockyard.yaml'), example!);
      const config = loadConfig({ env: {}, cwd });
      expect(config.readyNetworks).toEqual(['ethereum/mainnet']);
      const [ethereum, base] = config.chains;
      expect(ethereum).toMatchObject({ chainId: 1, blockTimeS: 12, maxLagBlocks: 3, getLogsMaxRange: 5000 });
      expect(ethereum!.upstreams.map((u) => u.name)).toEqual(['own-erigon', 'alchemy', 'infura', 'public-fallback']);
      expect(ethereum!.upstreams[0]).toMatchObject({ maxConcurrency: 128, timeoutMs: 20000, gzip: false });
      expect(ethereum!.upstreams[1]).toMatchObject({ cuPerS: 660, cuTable: 'alchemy', getLogsMaxRange: 2000 });
      expect(ethereum!.upstreams[1]!.gzip).toBeUndefined();
      expect(ethereum!.upstreams[2]).toMatchObject({
        cuPerS: 4000,
        cuTable: 'infura',
        methods: { deny: ['trace_*', 'debug_*'] },
      });
      expect(ethereum!.upstreams[3]).toMatchObject({
        tier: 'fallback',
        rps: 10,
        archive: false,
        recentBlocks: 128,
        batchMaxSize: 5,
        getLogsMaxRange: 1000,
      });
      expect(base).toMatchObject({ chainId: 8453, maxLagBlocks: 10 });
      expect(base!.upstreams[1]).toMatchObject({ name: 'quicknode-base', rps: 50, cuTable: 'quicknode' });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
