import { describe, expect, it } from 'vitest';
import { createChainWindow, type Header } from '../../src/ws/chain-window.ts';

/** Headers of a made-up chain: `h(5, 'a')` is block 5 on branch a, its parent block 4 on the same branch. */
const h = (n: number, branch = 'a', parentBranch = branch): Header => ({
  number: `0x${n.toString(16)}`,
  hash: `${branch}${n}`,
  parentHash: `${parentBranch}${n - 1}`,
});
const numbersOf = (blocks: readonly { header: Header }[]) => blocks.map((b) => b.header.hash);

describe('createChainWindow', () => {
  const known = new Map<string, Header>();
  const fetchByHash = async (hash: string) => known.get(hash);
  for (let n = 1; n <= 20; n++)
    for (const branch of ['a', 'b']) known.set(`${branch}${n}`, h(n, branch, n === 11 && branch === 'b' ? 'a' : branch));

  it('extends, ignores a repeated head, and fills a gap from parent hashes', async () => {
    const window = createChainWindow(8);
    expect(numbersOf((await window.advance(h(1), fetchByHash)).added)).toEqual(['a1']);
    expect(numbersOf((await window.advance(h(2), fetchByHash)).added)).toEqual(['a2']);
    expect(await window.advance(h(2), fetchByHash)).toEqual({ dropped: [], added: [] });
    const gap = await window.advance(h(5), fetchByHash);
    expect(numbersOf(gap.added)).toEqual(['a3', 'a4', 'a5']);
    expect(gap.dropped).toEqual([]);
  });

  it('a reorg drops the old branch from the fork on and adds the new one, declared by a head at or above the tip', async () => {
    const window = createChainWindow(16);
    for (let n = 8; n <= 13; n++) await window.advance(h(n), fetchByHash);
    // b11's parent is a10. b12 comes from a node below the tip: no reorg yet; b13 is at the tip's height.
    expect(await window.advance(h(12, 'b'), fetchByHash)).toEqual({ dropped: [], added: [] });
    expect(window.tip?.header.hash).toBe('a13');
    const change = await window.advance(h(13, 'b'), fetchByHash);
    expect(numbersOf(change.dropped)).toEqual(['a11', 'a12', 'a13']);
    expect(numbersOf(change.added)).toEqual(['b11', 'b12', 'b13']);
    expect(window.tip?.header.hash).toBe('b13');
  });

  it('never goes back: heads below the tip, of the same or another hash, in or below the window, change nothing', async () => {
    const window = createChainWindow(4);
    for (let n = 10; n <= 14; n++) await window.advance(h(n), fetchByHash);
    // A node behind (the feed moved to it): its heads are known, then another branch, then far below the window.
    for (const head of [h(12), h(13), h(12, 'b'), h(13, 'b'), h(3), h(3, 'b'), h(14)]) {
      expect(await window.advance(head, fetchByHash), head.hash).toEqual({ dropped: [], added: [] });
    }
    expect(window.tip?.header.hash).toBe('a14');
    expect(numbersOf((await window.advance(h(15), fetchByHash)).added)).toEqual(['a15']);
  });

  it('restarts below the tip only after lower heads of other hashes kept coming for restartBelowAfterMs (the chain started over)', async () => {
    let clock = 0;
    const window = createChainWindow(16, { restartBelowAfterMs: 30_000, now: () => clock });
    for (let n = 10; n <= 14; n++) await window.advance(h(n), fetchByHash);
    expect((await window.advance(h(2, 'b'), fetchByHash)).added).toEqual([]);
    clock = 20_000;
    expect((await window.advance(h(3, 'b'), fetchByHash)).added).toEqual([]);
    // A head at the tip in between would have cleared the clock; none came.
    clock = 30_000;
    const change = await window.advance(h(4, 'b'), fetchByHash);
    expect(numbersOf(change.added)).toEqual(['b4']);
    expect(window.tip?.header.hash).toBe('b4');
  });

  it('a head at the tip clears the run of lower heads', async () => {
    let clock = 0;
    const window = createChainWindow(16, { restartBelowAfterMs: 30_000, now: () => clock });
    for (let n = 10; n <= 14; n++) await window.advance(h(n), fetchByHash);
    await window.advance(h(2, 'b'), fetchByHash);
    clock = 20_000;
    await window.advance(h(14), fetchByHash);
    clock = 31_000;
    expect((await window.advance(h(5, 'b'), fetchByHash)).added).toEqual([]);
    expect(window.tip?.header.hash).toBe('a14');
  });

  it('a jump beyond the window restarts from the new head', async () => {
    const window = createChainWindow(4);
    await window.advance(h(1), fetchByHash);
    const change = await window.advance(h(10), fetchByHash);
    expect(numbersOf(change.added)).toEqual(['a10']);
    expect(change.dropped).toEqual([]);
  });
});
