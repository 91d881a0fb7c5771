import { describe, expect, it } from 'vitest';
import { type ExpectedIdentity, identityProblem } from '../../src/chains/identity-check.ts';

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
