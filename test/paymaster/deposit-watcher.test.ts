import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { PublicClient } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { startDepositWatcher } from '../../src/paymaster/deposit.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { devnetPaymasters } from './support.ts';

const setup = {
  version: '0.7',
  entryPoint: entryPoint07Address,
  address: devnetPaymasters.v07,
  signer: privateKeyToAccount(devnetSponsorKey),
} as const;

describe('the deposit watcher', () => {
  it('sets the gauge and warns once when the deposit falls below the threshold, again after it recovered', async () => {
    let deposit: bigint | Error = 5n;
    const client = {
      readContract: async () => {
        if (deposit instanceof Error) throw deposit;
        return deposit;
      },
    } as unknown as PublicClient;
    const lines: { level: number; msg: string; depositWei?: string }[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const registry = new Registry();
    const watcher = startDepositWatcher({
      client,
      network: 'ethereum/devnet',
      setups: { '0.7': setup },
      warningWei: 10n,
      intervalMs: 60_000,
      registry,
      logger,
    });
    try {
      const gauge = async () => (await registry.getSingleMetric('blockyard_paymaster_deposit_wei')!.get()).values;
      const warnings = () => lines.filter((line) => line.level === 40);
      await watcher.refresh();
      expect(watcher.latest('0.7')).toBe(5n);
      expect(watcher.latest('0.6')).toBeUndefined();
      expect(await gauge()).toEqual([{ value: 5, labels: { network: 'ethereum/devnet', paymaster: devnetPaymasters.v07 } }]);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toMatchObject({ depositWei: '5' });
      expect(warnings()[0]?.msg).toMatch(/^paymaster deposit is low/);

      await watcher.refresh();
      expect(warnings()).toHaveLength(1);
      deposit = 50n;
      await watcher.refresh();
      expect(await gauge()).toEqual([{ value: 50, labels: { network: 'ethereum/devnet', paymaster: devnetPaymasters.v07 } }]);
      deposit = 9n;
      await watcher.refresh();
      expect(warnings()).toHaveLength(2);

      // A failed read: the value is unknown until the next one succeeds (the gauge keeps the last).
      deposit = new Error('node down');
      await watcher.refresh();
      expect(watcher.latest('0.7')).toBeUndefined();
      expect(lines.at(-1)).toMatchObject({ level: 20, msg: 'paymaster deposit unknown' });
    } finally {
      watcher.close();
    }
  });
});
