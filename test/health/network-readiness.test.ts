import { describe, expect, it } from 'vitest';
import type { UpstreamConditionName } from '../../src/chains/upstream-condition.ts';
import type { UpstreamStats } from '../../src/chains/upstream-pool.ts';
import { networkReadiness } from '../../src/health/network-readiness.ts';

function upstream(name: string, condition: UpstreamConditionName, reason: string | null = null): UpstreamStats {
  const identity = condition === 'wrong_chain' ? 'refused' : condition === 'verifying' ? 'unverified' : 'verified';
  return {
    upstream: name,
    head: 100,
    lag: 0,
    ewmaMs: 5,
    p95Ms: 9,
    errorRate: 0,
    samples: 10,
    breaker: condition === 'unreachable' ? 'open' : 'closed',
    inFlight: 0,
    tier: 'primary',
    identity,
    condition: { name: condition, reason, since: 0 },
    budget: {},
    logsRangeCap: null,
  };
}

describe('a network is ready when one upstream is verified and serving', () => {
  it.each(['ok', 'lagging', 'bad_answers', 'rate_limited'] as const)('an upstream %s beside dead ones serves', (condition) => {
    expect(networkReadiness([upstream('own', 'unreachable', 'timeout'), upstream('alchemy', condition)])).toEqual({
      ready: true,
    });
  });

  it('says every upstream serves another chain when each was refused, naming each', () => {
    const wrong = 'eth_chainId answered 0x1 (1), expected 0x2105 (8453)';
    expect(networkReadiness([upstream('a', 'wrong_chain', wrong), upstream('b', 'wrong_chain', wrong)])).toEqual({
      ready: false,
      reason: `every upstream serves another chain (a: wrong_chain (${wrong}); b: wrong_chain (${wrong}))`,
    });
  });

  it('says no upstream answers otherwise, with each one condition and reason', () => {
    const result = networkReadiness([
      upstream('own', 'unreachable', 'timeout'),
      upstream('infura', 'recovering', 'one probe let through after failures'),
      upstream('quicknode', 'verifying', 'chain id check failed: connection refused'),
      upstream('ankr', 'wrong_chain', 'eth_chainId answered 0x1 (1), expected 0x2105 (8453)'),
    ]);
    expect(result).toEqual({
      ready: false,
      reason:
        'no upstream answers (own: unreachable (timeout); infura: recovering (one probe let through after failures); ' +
        'quicknode: verifying (chain id check failed: connection refused); ankr: wrong_chain (eth_chainId answered 0x1 (1), expected 0x2105 (8453)))',
    });
  });
});
