import { describe, expect, it } from 'vitest';
import type { Network } from '../../src/chains/registry.ts';
import { composePriceSources, type PriceSource } from '../../src/tokens/prices/price-source.ts';
import { createStaticPriceSource } from '../../src/tokens/prices/static-price-source.ts';

/** Only `config` is read by the static source: a network of the registry needs live upstreams otherwise. */
const networkNamed = (chain: string, network: string) => ({ config: { chain, network } }) as unknown as Network;
const token = '0x00000000000000000000000000000000000000aa';

describe('static price table', () => {
  it('prefers the exact network, falls back to a chain-wide entry, else null', async () => {
    const prices = createStaticPriceSource([
      { chain: 'ethereum', contract: token, usd: '1.00' },
      { chain: 'ethereum', network: 'sepolia', contract: token, usd: '0.5' },
    ]);
    expect(await prices.usdPrice(networkNamed('ethereum', 'mainnet'), token)).toBe('1');
    expect(await prices.usdPrice(networkNamed('ethereum', 'sepolia'), token.toUpperCase().replace('0X', '0x'))).toBe('0.5');
    expect(await prices.usdPrice(networkNamed('polygon', 'mainnet'), token)).toBeNull();
    expect(await prices.usdPrice(networkNamed('ethereum', 'mainnet'), '0x00000000000000000000000000000000000000bb')).toBeNull();
  });

  it('takes entries at run time and refuses prices that are not plain decimals', async () => {
    const prices = createStaticPriceSource();
    expect(await prices.usdPrice(networkNamed('ethereum', 'devnet'), token)).toBeNull();
    prices.add({ chain: 'ethereum', network: 'devnet', contract: token, usd: '42.4200' });
    expect(await prices.usdPrice(networkNamed('ethereum', 'devnet'), token)).toBe('42.42');
    expect(() => prices.add({ chain: 'ethereum', contract: token, usd: '-1' })).toThrow(
      /static price of ethereum .*not a non-negative decimal/,
    );
  });

  it('composes sources: the first that knows the price answers', async () => {
    const asked: string[] = [];
    const recording = (name: string, price: string | null): PriceSource => ({
      async usdPrice() {
        asked.push(name);
        return price;
      },
    });
    const network = networkNamed('ethereum', 'devnet');
    expect(
      await composePriceSources([recording('a', null), recording('b', '2'), recording('c', '3')]).usdPrice(network, token),
    ).toBe('2');
    expect(asked).toEqual(['a', 'b']);
    expect(await composePriceSources([recording('d', null)]).usdPrice(network, token)).toBeNull();
  });
});
