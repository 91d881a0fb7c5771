import { describe, expect, it } from 'vitest';
import { createMethodFilter } from '../../src/chains/method-filter.ts';

describe('an upstream methods setting', () => {
  it('serves everything without a setting, and the allowed minus the denied with one', () => {
    expect(createMethodFilter(undefined)('trace_block')).toBe(true);
    const noTraces = createMethodFilter({ deny: ['trace_*', 'debug_*'] });
    expect(noTraces('eth_call')).toBe(true);
    expect(noTraces('trace_block')).toBe(false);
    expect(noTraces('debug_traceTransaction')).toBe(false);
    const logsOnly = createMethodFilter({ allow: ['eth_getLogs', 'eth_chainId', 'eth_blockNumber'] });
    expect(logsOnly('eth_getLogs')).toBe(true);
    expect(logsOnly('eth_getLogsX')).toBe(false);
    expect(logsOnly('eth_call')).toBe(false);
    const allButSends = createMethodFilter({ allow: ['*'], deny: ['eth_sendRawTransaction'] });
    expect(allButSends('eth_sendRawTransaction')).toBe(false);
    expect(allButSends('eth_getBalance')).toBe(true);
  });

  it('takes a dot or other regex characters in a name literally', () => {
    expect(createMethodFilter({ allow: ['eth_get.alance'] })('eth_getBalance')).toBe(false);
  });
});
