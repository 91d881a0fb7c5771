import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { getAddress, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, deployDemo } from '../../src/demo/deploy-demo.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';

const run = promisify(execFile);
const exampleFile = new URL('../../examples/alchemy-sdk.ts', import.meta.url).pathname;

/** examples/alchemy-sdk.ts (docs/drop-in.md), run as a user runs it: its own process, only the URL. */
describe('examples/alchemy-sdk.ts', () => {
  let chain: IndexedChain;
  let url: string;
  let demo: DemoDeployment;

  beforeAll(async () => {
    chain = await startIndexedChain();
    const { key } = await chain.service.createKey();
    url = `${chain.service.url}/v1/rpc/ethereum/devnet/${key}`;
    demo = await deployDemo({ rpcUrl: chain.service.anvil.url, log: { info: () => undefined } });
    await chain.synced();
    // The metadata fetcher reads the minted tokens' data: URIs in the background: the example prints their names.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const owned = await fetch(`${chain.service.url}/v1/nfts/ethereum/owned/${demoAccounts.dev}`, {
        headers: { 'x-api-key': key },
      });
      const { nfts } = (await owned.json()) as { nfts: { name: string | null }[] };
      if (nfts.length === 6 && nfts.every((nft) => nft.name !== null)) break;
      if (Date.now() > deadline) throw new Error('demo NFT metadata not fetched within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(() => chain?.service.stop());

  it('prints the head, the dev account tokens, NFTs and collections, and its transfers', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', exampleFile, demoAccounts.dev], {
      env: { ...process.env, BLOCKYARD_URL: url },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    const head = Number(BigInt(((await chain.anvilRpc('eth_blockNumber')) as string) ?? '0x0'));
    expect(lines[0]).toBe(`block number: ${head}`);

    const token = demo.token.toLowerCase();
    expect(lines.some((line) => line.toLowerCase() === `token ${token}: ${parseUnits('996707.75', 6)}`)).toBe(true);

    // The dev account keeps apes 1-3 and items 1-3; v3 answers write contract addresses checksummed, as Alchemy's.
    expect(lines).toContain('NFTs: 6');
    const nftLines = lines.filter((line) => line.startsWith('nft '));
    expect(nftLines).toHaveLength(6);
    expect(nftLines).toContain(`nft ${getAddress(demo.nft)} #3 x1: Blockyard Demo Ape #3 (ERC721)`);
    expect(nftLines.some((line) => line.startsWith(`nft ${getAddress(demo.items)} #1 x650: `))).toBe(true);

    expect(lines).toContain(`collection ${getAddress(demo.nft)} Blockyard Demo Apes: 3 tokens, 3 units`);
    expect(lines).toContain(`collection ${getAddress(demo.items)} Blockyard Demo Items: 3 tokens, 696 units`);

    expect(lines.some((line) => line.startsWith('transfer '))).toBe(true);
  }, 90_000);
});
