import { describe, expect, it } from 'vitest';
import { createFilterTags, withCreatedFilterId, withFilterParam } from '../../src/chains/filter-ids.ts';

const urls = ['http://10.0.0.1:8545', 'http://10.0.0.2:8545/key/secret', 'https://node.example/v2/abc'];

describe('filter ids that name their node', () => {
  it('tags a node id so that any process with the same upstream list finds the node and the original id', () => {
    const here = createFilterTags(urls, (url) => url);
    const elsewhere = createFilterTags([...urls], (url) => url);
    const nodeId = '0x7cf0c5a85b4f9b33d1e0a9d4c7e2f0a1';
    const id = here.encode(nodeId, urls[1]!);
    expect(id).toMatch(/^0x[89a-f][0-9a-f]{7}7cf0c5a85b4f9b33d1e0a9d4c7e2f0a1$/);
    expect(elsewhere.decode(id)).toEqual({ upstream: urls[1], id: nodeId });
    expect(elsewhere.decode(id.toUpperCase().replace('0X', '0x'))).toEqual({
      upstream: urls[1],
      id: `0x${nodeId.slice(2).toUpperCase()}`,
    });
    // Each upstream its own tag.
    const tags = urls.map((url) => here.encode('0x1', url).slice(0, 10));
    expect(new Set(tags).size).toBe(urls.length);
  });

  it('gives two upstreams with the same URL different tags', () => {
    const twins = [{ url: 'http://a' }, { url: 'http://a' }];
    const tags = createFilterTags(twins, (upstream) => upstream.url);
    const [first, second] = twins.map((upstream) => tags.encode('0xabc', upstream));
    expect(first).not.toBe(second);
    expect(tags.decode(first!)?.upstream).toBe(twins[0]);
    expect(tags.decode(second!)?.upstream).toBe(twins[1]);
  });

  it('decodes nothing from an id another upstream list tagged, a node id, or a non-hex value', () => {
    const tags = createFilterTags(urls, (url) => url);
    const foreign = createFilterTags(['http://elsewhere:8545'], (url) => url).encode('0x1234', 'http://elsewhere:8545');
    for (const id of [foreign, '0x1', '0x7cf0c5a85b4f9b33d1e0a9d4c7e2f0a1', '0xzz', 'filter', '', '0x']) {
      expect(tags.decode(id)).toBeUndefined();
    }
  });

  it('leaves an id that is not hex, or an upstream not in the list, as it is', () => {
    const tags = createFilterTags(urls, (url) => url);
    expect(tags.encode('filter-1', urls[0]!)).toBe('filter-1');
    expect(tags.encode('0x12', 'http://unknown')).toBe('0x12');
  });

  it('rewrites the filter param of a call and the result of a creating answer, nothing else', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getFilterChanges', params: ['0x8000000012', 'extra'] });
    expect(JSON.parse(withFilterParam(body, '0x12'))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'eth_getFilterChanges',
      params: ['0x12', 'extra'],
    });
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 'a', result: '0x12' });
    expect(JSON.parse(withCreatedFilterId(answer, (id) => `0x80000000${id.slice(2)}`))).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: '0x8000000012',
    });
    const error = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'no' } });
    expect(withCreatedFilterId(error, () => 'changed')).toBe(error);
  });
});
