import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Network } from '../../src/chains/registry.ts';
import { createNftMetadataFetcher, type MetadataJob } from '../../src/nfts/metadata-fetcher.ts';
import { nftTransferEvent } from './support/nft-transfer-event.ts';

const devnet = { config: { chain: 'ethereum', network: 'devnet' } } as Network;
const chains = {
  get(chain: string, network: string): Network {
    if (chain === 'ethereum' && network === 'devnet') return devnet;
    throw new Error(`unknown ${chain}/${network}`);
  },
};
const logger = pino({ level: 'silent' });
const zero = '0x0000000000000000000000000000000000000000';

const transfer = nftTransferEvent;

describe('NFT metadata fetcher queue', () => {
  it('runs at most `concurrency` jobs at once and runs each queued token once', async () => {
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const fetcher = createNftMetadataFetcher({
      chains,
      logger,
      concurrency: 3,
      run: async (job) => {
        running++;
        most = Math.max(most, running);
        ran.push(job.tokenId);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
      },
    });
    for (let id = 0; id < 12; id++) fetcher.onMinted(devnet, '0xAB', BigInt(id));
    fetcher.onMinted(devnet, '0xab', 11n); // already queued
    await fetcher.idle();
    expect(most).toBe(3);
    expect(ran.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, id) => String(id)));
  });

  it('queues a fetch for every mint in the chain event stream, and nothing else', async () => {
    const jobs: MetadataJob[] = [];
    const fetcher = createNftMetadataFetcher({ chains, logger, run: async (job) => void jobs.push(job) });
    fetcher.listener([
      transfer({ contract: '0xAA', standard: 'ERC721', from: zero, to: '0x01', token_id: '5', amount: '1' }),
      transfer({ contract: '0xbb', standard: 'ERC1155', from: zero, to: '0x01', token_id: '9', amount: '3' }),
      transfer({ contract: '0xaa', standard: 'ERC721', from: '0x01', to: '0x02', token_id: '5', amount: '1' }),
      transfer({ contract: '0xaa', standard: 'ERC721', from: zero, to: '0x01', token_id: '6' }, { removed: true }),
      transfer({ contract: '0xaa', from: zero, token_id: '7' }, { type: 'token_transfer' }),
      transfer({ contract: '0xaa', from: zero, token_id: '8' }, { network: 'polygon/mainnet' }),
    ]);
    await fetcher.idle();
    expect(jobs.map(({ contract, tokenId, standard }) => ({ contract, tokenId, standard }))).toEqual([
      { contract: '0xaa', tokenId: '5', standard: 'ERC721' },
      { contract: '0xbb', tokenId: '9', standard: 'ERC1155' },
    ]);
    expect(jobs[0]?.network).toBe(devnet);
  });

  it('survives failing jobs, drops jobs past its bound, and stops on close', async () => {
    const ran: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fetcher = createNftMetadataFetcher({
      chains,
      logger,
      concurrency: 1,
      maxQueued: 2,
      run: async (job) => {
        ran.push(job.tokenId);
        if (job.tokenId === '0') await gate;
        if (job.tokenId === '1') throw new Error('broken');
      },
    });
    for (let id = 0; id < 5; id++) fetcher.onMinted(devnet, '0xaa', BigInt(id));
    // One running, two queued; ids 3 and 4 found the queue full.
    release();
    await fetcher.idle();
    expect(ran).toEqual(['0', '1', '2']);
    await fetcher.close();
    fetcher.onMinted(devnet, '0xaa', 9n);
    await fetcher.idle();
    expect(ran).toEqual(['0', '1', '2']);
  });

  it('fetches again on EIP-4906 updates: one token, or the stored tokens of a range; not on removed logs', async () => {
    const jobs: MetadataJob[] = [];
    const asked: unknown[] = [];
    const fetcher = createNftMetadataFetcher({
      chains,
      logger,
      run: async (job) => void jobs.push(job),
      storedTokenIds: async (_network, contract, from, to, limit) => {
        asked.push({ contract, from, to, limit });
        return ['3', '4'];
      },
    });
    const word = (value: bigint) => value.toString(16).padStart(64, '0');
    const log = (topic: string, data: string, overrides = {}) =>
      transfer({ address: '0xAA', topics: [topic], data: `0x${data}` }, { type: 'log', ...overrides });
    fetcher.listener([
      log('0xf8e1a15aba9398e019f0b49df1a4fde98ee17ae345cb5f6b5e2c27f5033e8ce7', word(1n)),
      log('0xf8e1a15aba9398e019f0b49df1a4fde98ee17ae345cb5f6b5e2c27f5033e8ce7', word(2n), { removed: true }),
      log('0x6bd5c950a8d8df17f772f5af37cb3655737899cbf903264b9795592da439661c', word(3n) + word(10n)),
      // A range that ends before it starts names no token.
      log('0x6bd5c950a8d8df17f772f5af37cb3655737899cbf903264b9795592da439661c', word(10n) + word(3n)),
    ]);
    for (const deadline = Date.now() + 2_000; jobs.length < 3 && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 5));
    await fetcher.idle();
    expect(asked).toEqual([{ contract: '0xaa', from: 3n, to: 10n, limit: 50_000 }]);
    expect(jobs.map(({ contract, tokenId, refetch }) => ({ contract, tokenId, refetch }))).toEqual([
      { contract: '0xaa', tokenId: '1', refetch: true },
      { contract: '0xaa', tokenId: '3', refetch: true },
      { contract: '0xaa', tokenId: '4', refetch: true },
    ]);
  });
});
