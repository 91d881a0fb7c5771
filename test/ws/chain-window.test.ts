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

  it('a reorg drops the old branch from the fork on and adds the new one', async () => {
    const window = createChainWindow(16);
    for (let n = 8; n <= 13; n++) await window.advance(h(n), fetchByHash);
    // b11's parent is a10: a11..a13 are dropped, a shorter new branch wins.
    const change = await window.advance(h(12, 'b'), fetchByHash);
    expect(numbersOf(change.dropped)).toEqual(['a11', 'a12', 'a13']);
    expect(numbersOf(change.added)).toEqual(['b11', 'b12']);
    expect(window.tip?.header.hash).toBe('b12');
  });

  it('a jump beyond the window restarts from the new head', async () => {
    const window = createChainWindow(4);
    await window.advance(h(1), fetchByHash);
    const change = await window.advance(h(10), fetchByHash);
    expect(numbersOf(change.added)).toEqual(['a10']);
    expect(change.dropped).toEqual([]);
  });
});
