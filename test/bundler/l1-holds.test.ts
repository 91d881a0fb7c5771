import { describe, expect, it } from 'vitest';
import { createL1Holds } from '../../src/bundler/bundle-l1-fee.ts';

describe('ops held back by the L1 check', () => {
  const row = { hash: '0xab' } as Parameters<ReturnType<typeof createL1Holds>['hold']>[0][number];

  it('stay held at the same head, and are picked again once the head moves', () => {
    let clock = 0;
    const holds = createL1Holds({ now: () => clock });
    holds.hold([row], 7);
    clock = 5_000;
    expect(holds.isHeld(row, 7)).toBe(true);
    expect(holds.isHeld(row, 8)).toBe(false);
    expect(holds.isHeld(row, 8)).toBe(false);
  });

  it('are picked again after maxHoldMs with no new head (a chain that mines on demand)', () => {
    let clock = 0;
    const holds = createL1Holds({ maxHoldMs: 10_000, now: () => clock });
    holds.hold([row], 7);
    clock = 9_999;
    expect(holds.isHeld(row, 7)).toBe(true);
    clock = 10_000;
    expect(holds.isHeld(row, 7)).toBe(false);
  });
});
