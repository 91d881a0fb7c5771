import { describe, expect, it } from 'vitest';
import { importsOf, sources } from '../support/source-imports.ts';

/**
 * Issue 32, item 7: the upstream layer (src/chains) sits below the proxy and imports nothing of it; the
 * proxy, the indexer, the WebSocket feed and the bundler reach nodes only through a network's pool
 * (`network.pool`, `network.upstream`, `publicClientFor`, the pool's socket URLs), never on their own.
 */
describe('layering: src/chains below the proxy and its consumers', () => {
  it('src/chains imports nothing from src/rpc', () => {
    const offending = sources('src/chains').flatMap(({ path, text }) =>
      importsOf(text)
        .filter((specifier) => /(^|\/)rpc\//.test(specifier) || specifier.startsWith('../rpc'))
        .map((specifier) => `${path} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('only src/chains creates upstream clients', () => {
    const outside = sources('src').filter(({ path }) => !path.startsWith('src/chains/'));
    const offending = outside.flatMap(({ path, text }) =>
      /\bcreate(?:UpstreamClient|BatchingClient|PooledUpstream|UpstreamPool)\s*\(/.test(text) ? [path] : [],
    );
    expect(offending).toEqual([]);
  });

  it.each(['src/rpc', 'src/indexer', 'src/ws', 'src/bundler'])(
    '%s reaches nodes only through the pool: no HTTP client, socket or viem transport of its own',
    (dir) => {
      const offending = sources(dir).flatMap(({ path, text }) => {
        const found: string[] = [];
        if (importsOf(text).includes('undici')) found.push(`${path} imports undici`);
        if (/\bfetch\(/.test(text)) found.push(`${path} calls fetch`);
        if (/\bnew WebSocket\(/.test(text)) found.push(`${path} opens a WebSocket`);
        if (/\b(?:http|webSocket)\(\s*[\w.[\]'"`]/.test(text)) found.push(`${path} builds a viem transport`);
        if (/\bcreateUpstreamClient\b/.test(text)) found.push(`${path} names createUpstreamClient`);
        return found;
      });
      expect(offending).toEqual([]);
    },
  );
});
