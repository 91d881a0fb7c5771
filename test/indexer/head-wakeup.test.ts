import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { watchHeads } from '../../src/indexer/head-wakeup.ts';
import { startTestAnvil } from '../support/anvil.ts';

describe('watchHeads', () => {
  let anvil: Devnet;
  beforeAll(async () => {
    anvil = await startTestAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('calls back for each block the upstream announces over its WebSocket', async () => {
    let heads = 0;
    const watcher = watchHeads({ urls: () => [anvil.wsUrl], onHead: () => heads++, logger: pino({ level: 'silent' }) });
    try {
      const mine = () =>
        fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
          signal: AbortSignal.timeout(5000),
        });
      const deadline = Date.now() + 10_000;
      // The subscription starts after the socket opens: mine until two heads have arrived.
      while (heads < 2 && Date.now() < deadline) {
        await mine();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(heads).toBeGreaterThanOrEqual(2);
    } finally {
      watcher.close();
    }
  });
});
