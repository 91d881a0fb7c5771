/**
 * Spreads keepalive pings over the interval: every member belongs to one of `count` slots, and each
 * tick (interval / count) takes the next slot. Pinging thousands of sockets in one go costs one write
 * each (about 15 us): 5,000 at once held the event loop for 75-110 ms, and a head arriving meanwhile
 * waited for it. A member is still pinged once per interval, so "no pong by the next ping" keeps its meaning.
 */
export interface PingSlots<T> {
  add(member: T): void;
  remove(member: T): void;
  /** The next slot's members (a copy: the caller may remove members while it goes through them). */
  next(): T[];
}

export function createPingSlots<T>(count: number): PingSlots<T> {
  const slots = Array.from({ length: Math.max(1, count) }, () => new Set<T>());
  const slotOf = new Map<T, Set<T>>();
  let cursor = 0;
  return {
    add(member) {
      if (slotOf.has(member)) return;
      // The emptiest slot: connections that come and go unevenly still leave the slots even.
      let emptiest = slots[0]!;
      for (const slot of slots) if (slot.size < emptiest.size) emptiest = slot;
      emptiest.add(member);
      slotOf.set(member, emptiest);
    },
    remove(member) {
      slotOf.get(member)?.delete(member);
      slotOf.delete(member);
    },
    next() {
      const slot = slots[cursor]!;
      cursor = (cursor + 1) % slots.length;
      return [...slot];
    },
  };
}
