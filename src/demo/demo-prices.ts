import { type Address, createPublicClient, http } from 'viem';
import type { TokenPriceConfig } from '../config/token-settings.ts';
import { demoToken } from './demo-plan.ts';

export type DemoPrice = TokenPriceConfig & { usd: string };

/** The demo token's fixed USD price, for the service's price table. */
export function demoTokenPrices(token: Address, chain = 'ethereum', network = 'devnet'): DemoPrice[] {
  return [{ chain, network, contract: token.toLowerCase(), usd: demoToken.usd }];
}

/**
 * The demo's prices when the devnet holds the demo's data, whether this start deployed it (`--demo`)
 * or an earlier one did: the prices belong to the data, so a plain start after a demo run shows the
 * demo token's `usd_value` as the demo run did. None when the demo token has no code there.
 */
export async function demoPricesOnDevnet(rpcUrl: string, token: Address): Promise<DemoPrice[]> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }) });
  const code = await client.getCode({ address: token });
  return code === undefined || code === '0x' ? [] : demoTokenPrices(token);
}
