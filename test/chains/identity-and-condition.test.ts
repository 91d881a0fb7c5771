import { describe, expect, it } from 'vitest';
import { type ExpectedIdentity, identityProblem } from '../../src/chains/identity-check.ts';
import { type ConditionFacts, conditionOf } from '../../src/chains/upstream-condition.ts';

describe('identity: what an upstream says it serves', () => {
  it('accepts the chain id in any hex case and refuses another one with both ids in words', () => {
    expect(identityProblem({ kind: 'evm', chainId: 8453 }, '0x2105')).toBeUndefined();
    expect(identityProblem({ kind: 'evm', chainId: 8453 }, '0x2105'.toUpperCase().replace('0X', '0x'))).toBeUndefined();
    expect(identityProblem({ kind: 'evm', chainId: 8453 }, '0x1')).toBe('eth_chainId answered 0x1 (1), expected 0x2105 (8453)');
    expect(identityProblem({ kind: 'evm', chainId: 1 }, 'mainnet')).toBe('eth_chainId answered "mainnet", expected 0x1 (1)');
  });

  it('takes the first answer as the identity when none is configured, and holds the others to it', () => {
    const solana: ExpectedIdentity = { kind: 'solana', genesisHash: undefined };
    expect(identityProblem(solana, 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG')).toBeUndefined();
    expect(identityProblem(solana, '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')).toContain('expected EtWTRABZ');
    const evm: ExpectedIdentity = { kind: 'evm', chainId: undefined };
    expect(identityProblem(evm, '0x7a69')).toBeUndefined();
    expect(identityProblem(evm, '0x1')).toContain('expected 0x7a69 (31337)');
  });
});

describe('an upstream condition, worst first', () => {
  const ok: ConditionFacts = {
    identity: 'verified',
    identityProblem: undefined,
    breaker: 'closed',
    lastFailure: undefined,
    backingOffMs: 0,
    badAnswer: undefined,
    lagBlocks: 0,
    maxLagBlocks: 3,
  };
  it.each([
    [{}, 'ok', null],
    [{ lagBlocks: 3 }, 'ok', null],
    [{ lagBlocks: 7 }, 'lagging', '7 blocks behind the best head (more than 3)'],
    [{ badAnswer: 'receipt 0 names another block', lagBlocks: 7 }, 'bad_answers', 'receipt 0 names another block'],
    [{ backingOffMs: 1500, lagBlocks: 9 }, 'rate_limited', 'the node answered 429; nothing sent for 2 s'],
    [{ identity: 'unverified' as const }, 'verifying', 'chain id not checked yet'],
    [{ breaker: 'half_open' as const, identity: 'unverified' as const }, 'recovering', 'one probe let through after failures'],
    [{ breaker: 'open' as const, lastFailure: 'timeout' }, 'unreachable', 'timeout'],
    [
      { identity: 'refused' as const, identityProblem: 'eth_chainId answered 0x1 (1)', breaker: 'open' as const },
      'wrong_chain',
      'eth_chainId answered 0x1 (1)',
    ],
  ])('%j -> %s', (facts, name, reason) => {
    expect(conditionOf({ ...ok, ...facts })).toEqual({ name, reason });
  });
});
