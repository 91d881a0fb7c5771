import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { BaseError, type PublicClient } from 'viem';
import { entryPointV06Abi } from '../erc4337/contracts/abis.ts';
import type { PaymasterSetup, PaymasterSetups } from './paymaster-setup.ts';

/**
 * The paymaster's deposit in its EntryPoint (`balanceOf`): what sponsored ops are paid from.
 * (balanceOf has the same signature in EntryPoint v0.6 and v0.7.)
 */
export async function paymasterDeposit(client: PublicClient, setup: PaymasterSetup): Promise<bigint> {
  return client.readContract({
    address: setup.entryPoint,
    abi: entryPointV06Abi,
    functionName: 'balanceOf',
    args: [setup.address],
  });
}

export interface DepositWatcher {
  /** The deposit last read, per EntryPoint version; undefined before the first read or while reads fail. */
  latest(version: PaymasterSetup['version']): bigint | undefined;
  /** Reads every deposit now (after a sponsored op lands, and in tests). */
  refresh(): Promise<void>;
  close(): void;
}

const gaugeName = 'blockyard_paymaster_deposit_wei';

/**
 * Watches the deposits of a network's paymasters: read every `intervalMs` into the gauge
 * `blockyard_paymaster_deposit_wei{network, paymaster}`, with a warning when one falls below
 * `warningWei` (once, until it is above again). A failed read is logged at debug and retried.
 */
export function startDepositWatcher(deps: {
  client: PublicClient;
  /** `chain/network`, the gauge's label. */
  network: string;
  setups: PaymasterSetups;
  warningWei: bigint;
  intervalMs: number;
  registry: Registry;
  logger: Logger;
}): DepositWatcher {
  const { client, network, warningWei, logger } = deps;
  const setups = Object.values(deps.setups).filter((setup): setup is PaymasterSetup => setup !== undefined);
  const gauge =
    (deps.registry.getSingleMetric(gaugeName) as Gauge<'network' | 'paymaster'> | undefined) ??
    new Gauge({
      name: gaugeName,
      help: "A verifying paymaster's deposit in its EntryPoint (what sponsored operations are paid from), by network and paymaster address",
      labelNames: ['network', 'paymaster'],
      registers: [deps.registry],
    });
  const latest = new Map<PaymasterSetup['version'], bigint>();
  const warned = new Set<PaymasterSetup['version']>();
  let closed = false;

  async function read(setup: PaymasterSetup) {
    let deposit: bigint;
    try {
      deposit = await paymasterDeposit(client, setup);
    } catch (error) {
      latest.delete(setup.version);
      logger.debug({ network, paymaster: setup.address, reason: shortReason(error) }, 'paymaster deposit unknown');
      return;
    }
    if (closed) return;
    latest.set(setup.version, deposit);
    gauge.set({ network, paymaster: setup.address }, Number(deposit));
    const low = deposit < warningWei;
    if (low && !warned.has(setup.version)) {
      logger.warn(
        {
          network,
          paymaster: setup.address,
          entryPoint: setup.entryPoint,
          depositWei: deposit.toString(),
          warningWei: warningWei.toString(),
        },
        'paymaster deposit is low: fund it with entryPoint.depositTo(paymaster) or sponsored operations stop',
      );
    }
    if (low) warned.add(setup.version);
    else warned.delete(setup.version);
  }

  const refresh = async () => {
    await Promise.all(setups.map(read));
  };
  let reading = false;
  const tick = () => {
    if (reading) return;
    reading = true;
    void refresh().finally(() => {
      reading = false;
    });
  };
  tick();
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();

  return {
    latest: (version) => latest.get(version),
    refresh,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}

/** viem's messages quote the call and the whole ABI: the node's own words are enough. */
export function shortReason(error: unknown): string {
  return error instanceof BaseError ? error.details || error.shortMessage : String(error);
}
