// A value handed from one page to the next once (a webhook's signing secret after its creation page):
// kept in memory only, never in storage, and gone once the next page is on screen.
import { useEffect, useState } from 'react';

const held = new Map<string, string>();

export function hold(key: string, value: string): void {
  held.set(key, value);
}

/**
 * The value held for `key`, forgotten once the page that reads it has mounted. Read, not taken, while
 * rendering: React may render a page more than once before it mounts one of those renders (an
 * interrupted render, StrictMode), and a value taken by a render that was thrown away would be lost.
 */
export function useHeld(key: string): string | undefined {
  const [value] = useState(() => held.get(key));
  useEffect(() => {
    held.delete(key);
  }, [key]);
  return value;
}
