import { describe, expect, it } from 'vitest';
import { createFilterHomes } from '../../src/chains/filter-homes.ts';
import { readNeedOf } from '../../src/chains/read-need.ts';

const answer = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });

describe('filter homes: which node holds a filter', () => {
  it('learns the id of a creating answer, case-insensitively, and forgets it on uninstall', () => {
    const homes = createFilterHomes<string>({ max: 10, idleMs: 1_000 });
    homes.learn(answer('0xAbC123'), 'node a');
    expect(homes.homeOf('0xabc123')).toBe('node a');
    expect(homes.homeOf('0xABC123')).toBe('node a');
    homes.forget('0xabc123');
    expect(homes.homeOf('0xabc123')).toBeUndefined();
  });

  it('learns nothing from an error, a null or a result that is no filter id', () => {
    const homes = createFilterHomes<string>({ max: 10, idleMs: 1_000 });
    homes.learn(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'filter not found' } }), 'a');
    homes.learn(answer(null), 'a');
    homes.learn(answer(12), 'a');
    homes.learn(answer('filter'), 'a');
    homes.learn(answer(`0x${'1'.repeat(65)}`), 'a');
    expect(homes.size).toBe(0);
  });

  it('forgets a filter left unused longer than idleMs; each use restarts its time', () => {
    let now = 0;
    const homes = createFilterHomes<string>({ max: 10, idleMs: 1_000, now: () => now });
    homes.learn(answer('0x1'), 'a');
    homes.learn(answer('0x2'), 'b');
    now = 900;
    expect(homes.homeOf('0x1')).toBe('a');
    now = 1_500;
    expect(homes.homeOf('0x2')).toBeUndefined();
    expect(homes.homeOf('0x1')).toBe('a');
  });

  it('keeps the `max` most recently used', () => {
    const homes = createFilterHomes<number>({ max: 3, idleMs: 60_000 });
    for (let n = 1; n <= 3; n++) homes.learn(answer(`0x${n}`), n);
    expect(homes.homeOf('0x1')).toBe(1);
    homes.learn(answer('0x4'), 4);
    expect(homes.size).toBe(3);
    expect(homes.homeOf('0x2')).toBeUndefined();
    expect([homes.homeOf('0x1'), homes.homeOf('0x3'), homes.homeOf('0x4')]).toEqual([1, 3, 4]);
  });

  it('the filter methods are told apart from other reads', () => {
    expect(readNeedOf('eth_newFilter', [{ address: '0x00' }]).filter).toEqual({ create: true });
    expect(readNeedOf('eth_newBlockFilter', []).filter).toEqual({ create: true });
    expect(readNeedOf('eth_newPendingTransactionFilter', []).filter).toEqual({ create: true });
    expect(readNeedOf('eth_getFilterChanges', ['0x1f']).filter).toEqual({ id: '0x1f', uninstall: false });
    expect(readNeedOf('eth_getFilterLogs', ['0x1f']).filter).toEqual({ id: '0x1f', uninstall: false });
    expect(readNeedOf('eth_uninstallFilter', ['0x1f']).filter).toEqual({ id: '0x1f', uninstall: true });
    expect(readNeedOf('eth_getFilterChanges', [12]).filter).toBeUndefined();
    expect(readNeedOf('eth_getLogs', [{}]).filter).toBeUndefined();
  });
});
