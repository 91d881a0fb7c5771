import { createPublicClient, http, type PublicClient, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, fund, generousFees, newSimpleAccount } from './support.ts';

const factory = erc4337Addresses.v07.factory;
const publicClientOf = (url: string) => createPublicClient({ chain: foundry, transport: http(url) }) as PublicClient;

/**
 * ERC-7562 reputation throttles and bans only in safe mode. One anvil, two bundler networks on it:
 * `devnet` with `safe_mode: false`, `strict` with safe mode on (the default). Both hold their ops
 * (manual bundling): only admission is looked at.
 */
describe('reputation follows safe mode', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [
        devnetChain(anvilUrl, { bundler: { enabled: true, safe_mode: false } }),
        { ...devnetChain(anvilUrl, { bundler: { enabled: true } }), network: 'strict' },
      ],
    });
    await installErc4337Contracts(service.anvil.url);
    key = (await service.createKey()).key;
    for (const network of ['devnet', 'strict']) {
      const url = bundlerUrlOf(service.url, network);
      expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
      // The factory of every SimpleAccount, as banned as ERC-7562 counts go: seen 1000 times, never included.
      const banned = [{ address: factory, opsSeen: '0x3e8', opsIncluded: '0x0' }];
      expect((await callBundler(url, key, 'debug_bundler_setReputation', [banned, entryPoint07Address])).result).toBe('ok');
    }
  }, 120_000);
  afterAll(() => service?.stop());

  it('with safe_mode false a "banned" factory is neither reported nor treated as banned: its op is accepted', async () => {
    const url = bundlerUrlOf(service.url);
    expect((await callBundler(url, key, 'debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([
      { address: factory.toLowerCase(), opsSeen: '0x3e8', opsIncluded: '0x0', status: 'ok' },
    ]);
    const publicClient = publicClientOf(service.anvil.url);
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const hash = await bundlerClientFor(url, key, publicClient).sendUserOperation({
      account,
      calls: [{ to: account.address, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const mempool = await callBundler(url, key, 'debug_bundler_dumpMempool', [entryPoint07Address]);
    expect(mempool.result.map((op: { factory?: string }) => op.factory?.toLowerCase())).toEqual([factory.toLowerCase()]);
  });

  it('in safe mode the banned factory is reported and its op refused (-32504)', async () => {
    const url = bundlerUrlOf(service.url, 'strict');
    expect((await callBundler(url, key, 'debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([
      { address: factory.toLowerCase(), opsSeen: '0x3e8', opsIncluded: '0x0', status: 'banned' },
    ]);
    const publicClient = publicClientOf(service.anvil.url);
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const sent = bundlerClientFor(url, key, publicClient).sendUserOperation({
      account,
      calls: [{ to: account.address, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    await expect(sent).rejects.toThrow(/factory 0x[0-9a-f]{40} is banned \(ERC-7562 reputation/);
  });
});
