// A value handed from one page to the next once (a webhook's signing secret after its creation page):
// kept in memory only, never in storage, and gone once read.
const held = new Map<string, string>();

export function hold(key: string, value: string): void {
  held.set(key, value);
}

export function takeHeld(key: string): string | undefined {
  const value = held.get(key);
  held.delete(key);
  return value;
}
