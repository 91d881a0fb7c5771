import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { type Chain, createWalletClient, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { chainOf, poolTransport } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';

/** Below this an executor is warned about: a bundle of a few ops costs around 0.001 ETH at 1 gwei. */
const lowBalanceWei = 10n ** 17n;

/** A key the bundler sends handleOps from: one bundle at a time each (its nonce). */
export interface Executor {
  readonly account: PrivateKeyAccount;
  readonly wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  busy: boolean;
  warnedLow: boolean;
}

/** The network's executors, one per key, each sending through the network's upstream pool. */
export function createExecutors(network: Network, keys: readonly Hex[]): Executor[] {
  return keys.map((key) => {
    const account = privateKeyToAccount(key);
    return {
      account,
      wallet: createWalletClient({ account, chain: chainOf(network), transport: poolTransport(network) }),
      busy: false,
      warnedLow: false,
    };
  });
}

/**
 * Reads an executor's balance into `blockyard_bundler_executor_balance_wei{network,executor}` and
 * warns once each time it falls below `lowBalanceWei`.
 */
export function createExecutorBalanceWatch(deps: { client: PublicClient; registry: Registry; logger: Logger; name: string }) {
  const { client, logger, name } = deps;
  const balanceGauge =
    (deps.registry.getSingleMetric('blockyard_bundler_executor_balance_wei') as Gauge<'network' | 'executor'> | undefined) ??
    new Gauge({
      name: 'blockyard_bundler_executor_balance_wei',
      help: "The bundler's executor balance, by network and executor address",
      labelNames: ['network', 'executor'],
      registers: [deps.registry],
    });
  return async function watchBalance(executor: Executor): Promise<void> {
    const balance = await client.getBalance({ address: executor.account.address });
    balanceGauge.set({ network: name, executor: executor.account.address }, Number(balance));
    if (balance < lowBalanceWei && !executor.warnedLow) {
      logger.warn(
        { network: name, executor: executor.account.address, balanceWei: balance.toString() },
        'bundler executor balance is low: fund it or bundles stop',
      );
    }
    executor.warnedLow = balance < lowBalanceWei;
  };
}
