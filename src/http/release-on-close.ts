import type { ServerResponse } from 'node:http';

/**
 * Calls `release` once the answer is sent or its connection is gone ('close' covers both), or at once
 * when that already happened while the slot was being taken (a round trip to Redis).
 */
export function releaseOnClose(response: ServerResponse, release: () => void): void {
  if (response.destroyed || response.writableFinished) release();
  else response.once('close', release);
}
