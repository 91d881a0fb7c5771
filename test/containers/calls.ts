import { setTimeout as sleep } from 'node:timers/promises';

/** JSON over HTTP with a deadline per attempt; retried on no answer or 5xx until `timeoutMs` (a 4xx throws). */
export async function callJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  timeoutMs = 30_000,
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(5_000),
      });
      const text = await response.text();
      if (response.ok) return text ? JSON.parse(text) : undefined;
      if (response.status < 500) throw new HttpRefusal(`${url}: HTTP ${response.status} ${text}`);
      last = `HTTP ${response.status} ${text.slice(0, 200)}`;
    } catch (error) {
      if (error instanceof HttpRefusal) throw error;
      last = String(error);
    }
    await sleep(500);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${last}`);
}

class HttpRefusal extends Error {}

/** Calls `probe` every `intervalMs` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 1_000,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(intervalMs);
  }
  return undefined;
}
