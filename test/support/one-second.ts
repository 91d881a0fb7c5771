/**
 * Waits (bounded) until the wall clock is just past the start of a second that has not begun yet, so
 * what follows falls in one window and nothing done before does (a call made just after a boundary
 * would otherwise share the window it aligned to).
 */
async function alignToSecond(): Promise<void> {
  const deadline = Date.now() + 3_000;
  const calledIn = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === calledIn || Date.now() % 1000 > 20) {
    if (Date.now() > deadline) throw new Error('could not align to a second boundary');
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, 1000 - (Date.now() % 1000))));
  }
}

/**
 * Runs `send` within one wall-clock second (one rate-limit window); runs it again (at most 3 times, on
 * fresh budgets from `send`'s own setup if it needs them) when it crossed into the next second.
 */
export async function withinOneSecond<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await alignToSecond();
    const startSecond = Math.floor(Date.now() / 1000);
    const result = await send();
    if (Math.floor(Date.now() / 1000) === startSecond) return result;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }
  throw new Error('every attempt crossed a second boundary');
}
