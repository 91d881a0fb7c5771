import { describe, expect, it } from 'vitest';
import { createPingSlots } from '../../src/ws/ping-slots.ts';

/** The members each tick of one full round hands out. */
const round = <T>(slots: { next(): T[] }, count: number) => Array.from({ length: count }, () => slots.next());

describe('keepalive ping slots', () => {
  it('hands every member out once per round of ticks, in slices of even size', () => {
    const slots = createPingSlots<number>(30);
    for (let member = 0; member < 5_000; member++) slots.add(member);
    for (let pass = 0; pass < 2; pass++) {
      const ticks = round(slots, 30);
      expect(ticks.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
      for (const tick of ticks) expect([166, 167]).toContain(tick.length);
    }
  });

  it('forgets a removed member, adds a member once however often it is added, and refills the emptiest slot', () => {
    const slots = createPingSlots<string>(3);
    for (const member of ['a', 'b', 'c', 'd', 'e', 'f']) slots.add(member);
    slots.add('a');
    expect(round(slots, 3).flat().sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // Both members of one slot leave; the next two to come fill that slot, not the others.
    const [first] = round(slots, 3);
    for (const member of first!) slots.remove(member);
    slots.add('g');
    slots.add('h');
    expect(round(slots, 3).map((tick) => tick.length)).toEqual([2, 2, 2]);
    expect(round(slots, 3)[0]!.sort()).toEqual(['g', 'h']);
  });

  it('gives a copy: removing members while going through a tick leaves the slot consistent', () => {
    const slots = createPingSlots<number>(1);
    for (let member = 0; member < 4; member++) slots.add(member);
    const tick = slots.next();
    for (const member of tick) slots.remove(member);
    expect(tick).toEqual([0, 1, 2, 3]);
    expect(slots.next()).toEqual([]);
  });
});
