// The README is short and points into docs/, and the pages point at each other: every relative link must
// reach a file that exists and, when it names an anchor, a heading of that file (GitHub's slug rules).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docsDir = join(root, 'docs');
const pages = [
  'README.md',
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The lines of a Markdown file outside fenced code blocks (a `# comment` in a shell block is no heading). */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading (github-slugger): the rendered text, lower case, punctuation dropped, spaces as '-'. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (a repeated one gets -1, -2, …) and explicit HTML ids. */
function anchorsOf(path: string): Set<string> {
  const text = readFileSync(join(root, path), 'utf8');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
      seen.set(slug, count + 1);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  return anchors;
}

/** The relative link targets of a file, outside code blocks and inline code. */
function relativeLinks(path: string): string[] {
  const text = readFileSync(join(root, path), 'utf8');
  const links: string[] = [];
  for (const line of proseLines(text)) {
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^(?:[a-z][a-z0-9+.-]*:|\/)/i.test(target)) continue; // https:, mailto:, and paths on a running server
      links.push(target);
    }
  }
  return links;
}

describe('links in README.md and docs/*.md', () => {
  it('computes anchors as GitHub does', () => {
    expect(githubSlug('One URL: the chain’s JSON-RPC too')).toBe('one-url-the-chains-json-rpc-too');
    expect(githubSlug('Contract and method rules: every call the op makes')).toBe(
      'contract-and-method-rules-every-call-the-op-makes',
    );
    expect(githubSlug('Sample data (`--demo`)')).toBe('sample-data---demo');
    expect(githubSlug('Signed requests (JWT)')).toBe('signed-requests-jwt');
    expect(githubSlug('Issue 21 round (2026-11-27): like with like in one run, and queued ops')).toBe(
      'issue-21-round-2026-11-27-like-with-like-in-one-run-and-queued-ops',
    );
    expect(githubSlug('Body: `snake_case` (Variant A, the default)')).toBe('body-snake_case-variant-a-the-default');
  });

  it.each(pages)('%s: every relative link reaches a file, and every anchor a heading', (page) => {
    const broken: string[] = [];
    for (const link of relativeLinks(page)) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file === '' ? page : relative(root, join(root, dirname(page), decodeURIComponent(file)));
      if (!existsSync(join(root, target))) {
        broken.push(`${link}: no file ${target}`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(join(root, target)).isDirectory() || !target.endsWith('.md')) {
        broken.push(`${link}: an anchor into ${target}, which is not a Markdown page`);
      } else if (!anchorsOf(target).has(decodeURIComponent(anchor))) {
        broken.push(`${link}: ${target} has no heading with the anchor #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README links every page of docs/ (no page is out of reach)', () => {
    const linked = new Set(relativeLinks('README.md').map((link) => link.split('#')[0]));
    const unlinked = pages.filter((page) => page !== 'README.md' && !linked.has(page));
    expect(unlinked).toEqual([]);
  });

  it('the README stays short: at most 250 lines, with the two commands', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
