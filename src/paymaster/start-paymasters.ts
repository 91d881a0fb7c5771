import { publicClientFor } from '../chains/public-client.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import { type DepositWatcher, shortReason, startDepositWatcher } from './deposit.ts';
import { readVerifyingSigner } from './paymaster-reads.ts';
import { type PaymasterSetup, type PaymasterSetups, paymasterSetupsOf } from './paymaster-setup.ts';

export interface NetworkPaymasters {
  readonly setups: PaymasterSetups;
  readonly deposits: DepositWatcher;
}

/**
 * The paymasters of every network that has some (by `chain/network`), each network's deposits
 * watched. A paymaster whose verifyingSigner is not the sponsor key is reported at start: every op
 * signed for it would be refused (AA34).
 */
export function startPaymasters(ctx: Context, chains: ChainRegistry): Map<string, NetworkPaymasters> {
  const { config, logger, metrics, shutdown } = ctx;
  const paymasters = new Map<string, NetworkPaymasters>();
  for (const network of chains.list()) {
    const setups = paymasterSetupsOf(network, config);
    const list = Object.values(setups).filter((setup): setup is PaymasterSetup => setup !== undefined);
    if (list.length === 0) continue;
    const name = `${network.config.chain}/${network.config.network}`;
    const client = publicClientFor(network);
    const deposits = startDepositWatcher({
      client,
      network: name,
      setups,
      warningWei: config.gas.depositWarningWei,
      intervalMs: Math.min(Math.max(network.config.blockTimeS * 1000, 1000), 5000),
      registry: metrics.registry,
      logger,
    });
    shutdown.add(`paymaster deposits ${name}`, () => deposits.close());
    for (const setup of list) {
      readVerifyingSigner(client, setup).then(
        (signer) => {
          if (signer.toLowerCase() !== setup.signer.address.toLowerCase())
            logger.error(
              { network: name, paymaster: setup.address, verifyingSigner: signer, sponsor: setup.signer.address },
              'the paymaster does not accept the sponsor key: its verifyingSigner is another address',
            );
        },
        (error: unknown) =>
          logger.debug({ network: name, paymaster: setup.address, reason: shortReason(error) }, 'paymaster signer unknown'),
      );
    }
    logger.info(
      { network: name, paymasters: list.map((setup) => `${setup.version} ${setup.address}`), sponsor: list[0]!.signer.address },
      'gas sponsorship paymasters',
    );
    paymasters.set(name, { setups, deposits });
  }
  return paymasters;
}
