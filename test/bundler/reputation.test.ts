import { describe, expect, it } from 'vitest';
import { decayed, reputationStatus } from '../../src/bundler/reputation.ts';

describe('ERC-7562 reputation', () => {
  it('throttles over seen/10 > included + 10 and bans over included + 50', () => {
    expect(reputationStatus(0, 0)).toBe('ok');
    expect(reputationStatus(109, 0)).toBe('ok');
    expect(reputationStatus(110, 0)).toBe('throttled');
    expect(reputationStatus(120, 0)).toBe('throttled');
    expect(reputationStatus(120, 1)).toBe('throttled');
    expect(reputationStatus(120, 2)).toBe('ok');
    expect(reputationStatus(509, 0)).toBe('throttled');
    expect(reputationStatus(510, 0)).toBe('banned');
    expect(reputationStatus(1000, 50)).toBe('throttled');
    expect(reputationStatus(1000, 90)).toBe('ok');
  });

  it('decays each counter by a 24th an hour', () => {
    expect(decayed(240, 0)).toBe(240);
    expect(decayed(240, 0.9)).toBe(240);
    expect(decayed(240, 1)).toBe(230);
    expect(decayed(240, 2)).toBe(221);
    expect(decayed(23, 5)).toBe(23);
  });
});
