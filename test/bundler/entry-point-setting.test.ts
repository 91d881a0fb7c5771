import { entryPoint07Address, entryPoint08Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { bareUserOperation, postBundler } from './support.ts';

/** `bundler.entry_points`: the EntryPoints a network's bundler serves, as Alto's `--entrypoints` and Rundler's flags choose them. */
describe('bundler.entry_points', () => {
  let started: BundlerService;
  beforeAll(async () => {
    started = await startBundlerService({ bundler: { entry_points: ['0.8'] } });
  }, 120_000);
  afterAll(async () => {
    await started?.service.stop();
  });
  const call = async (method: string, params: unknown[]) =>
    (await postBundler(started.url, started.key, { jsonrpc: '2.0', id: 1, method, params })).body;

  it('lists only the EntryPoints it names, and refuses an op for another one, naming those it serves', async () => {
    expect((await call('eth_supportedEntryPoints', [])).result).toEqual([entryPoint08Address]);
    for (const method of ['eth_sendUserOperation', 'eth_estimateUserOperationGas']) {
      const answer = await call(method, [bareUserOperation('0x000000000000000000000000000000000000a770'), entryPoint07Address]);
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toBe(
        `EntryPoint ${entryPoint07Address} is not supported here; supported: ${entryPoint08Address}`,
      );
    }
  });
});
