import { type Address, formatUnits } from 'viem';
import { formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Network } from '../../src/chains/registry.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { l2Fees, type RollupDevnet, startRollupDevnet } from '../bundler/l2-fee-support.ts';
import { devnetPaymasters, newEmptyAccount } from '../paymaster/support.ts';
import { busyL1, installOpPredeploys, setOpL1FeeParameters } from '../support/op-predeploys.ts';

const ethUsd = '2000';
const quietL1 = { ...busyL1, l1BaseFeeWei: 0n, blobBaseFeeWei: 0n };

/**
 * Sponsorship on an OP-stack devnet: an op's USD cost counts the L1 data fee, so a per-op cap that fits
 * its L2 gas alone refuses it once the L1 is busy (the op's preVerificationGas, as an L1 bundler would
 * estimate it, left the L1 part out: the sponsor counts what the bundler will require).
 */
describe('sponsorship caps on an OP-stack devnet count the L1 fee', () => {
  let rollup: RollupDevnet;
  let key: string;
  beforeAll(async () => {
    rollup = await startRollupDevnet('op-stack', (url) => installOpPredeploys(url, quietL1), {
      settings: {
        sponsor_key: devnetSponsorKey,
        tokens: { prices: [{ chain: 'ethereum', network: 'devnet', contract: 'native', usd: ethUsd }] },
      },
      chainSettings: { erc4337: { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 } },
    });
    const network = { config: rollup.service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
    await installDevnetPaymasters(rollup.anvil.url, paymasterSetupsOf(network, rollup.service.service.ctx.config));
    key = rollup.key;
  }, 120_000);
  afterAll(() => rollup?.stop());

  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${rollup.service.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const newPolicy = async (rules: Record<string, unknown>) => {
    const created = await api('/v1/gas/policies', { name: 'l1', chain: 'ethereum', network: 'devnet', rules });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  /** An op of a fresh account at L2 prices, its preVerificationGas without any L1 part. */
  const opFor = async (sender?: Address) => {
    const account = await newEmptyAccount(rollup.publicClient, '0.7');
    const { factory, factoryData } = await account.getFactoryArgs();
    return formatUserOperationRequest({
      sender: sender ?? account.address,
      nonce: 0n,
      factory,
      factoryData,
      callData: '0x',
      callGasLimit: 50_000n,
      verificationGasLimit: 400_000n,
      preVerificationGas: 60_000n,
      ...l2Fees,
      signature: '0x',
    } as UserOperation<'0.7'>);
  };
  const sponsor = async (policyId: string) =>
    api('/v1/gas/sponsor', { chain: 'ethereum', policy_id: policyId, user_operation: await opFor() });

  it('a per-op cap that fits the L2 gas alone refuses the op once the L1 fee is counted', async () => {
    const generous = await newPolicy({ max_gas_usd: '1000' });
    const quiet = await sponsor(generous);
    expect(quiet.status, JSON.stringify(quiet.body)).toBe(200);
    await setOpL1FeeParameters(rollup.anvil.url, busyL1);
    const busy = await sponsor(generous);
    expect(busy.status, JSON.stringify(busy.body)).toBe(200);
    const l2Only = Number(quiet.body.sponsored_gas_usd);
    const withL1 = Number(busy.body.sponsored_gas_usd);
    console.info(`sponsored cost: L2 gas alone $${l2Only}, with a 60 gwei L1's data fee $${withL1}`);
    // At 0.02 gwei a gas, a 60 gwei L1's data fee is most of the cost.
    expect(withL1).toBeGreaterThan(2 * l2Only);

    const cap = formatUnits(BigInt(Math.round(((l2Only + withL1) / 2) * 1e6)), 6);
    const capped = await newPolicy({ max_gas_usd_per_op: cap });
    const refused = await sponsor(capped);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/max_gas_usd_per_op/);
    await setOpL1FeeParameters(rollup.anvil.url, quietL1);
    expect((await sponsor(capped)).status).toBe(200);
  }, 60_000);
});
