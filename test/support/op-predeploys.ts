import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTestClient, type Hex, http, pad, toHex } from 'viem';
import { foundry } from 'viem/chains';
import { gasPriceOracleAddress } from '../../src/gas/l1-fee/l1-fee-contracts.ts';

/** OP-stack's L1Block predeploy: the L1 fee parameters GasPriceOracle reads. */
export const l1BlockAddress = '0x4200000000000000000000000000000000000015' as const;

/** The L1 fee parameters of an OP-stack chain, as its L1Block holds them (Ecotone and later). */
export interface OpL1FeeParameters {
  /** The L1 base fee, wei. */
  l1BaseFeeWei: bigint;
  /** The L1 blob base fee, wei. */
  blobBaseFeeWei: bigint;
  /** Base mainnet's since Ecotone: 2269 and 1055762 (parts per million, as the chain's SystemConfig sets them). */
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
}

/** Base mainnet's scalars under a busy L1: a 60 gwei base fee and a 10 gwei blob base fee. */
export const busyL1: OpL1FeeParameters = {
  l1BaseFeeWei: 60_000_000_000n,
  blobBaseFeeWei: 10_000_000_000n,
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
};

const require = createRequire(import.meta.url);

/** The runtime code of an OP-stack contract from `@eth-optimism/contracts-bedrock`'s forge artifacts. */
function deployedCodeOf(name: 'GasPriceOracle' | 'L1Block'): Hex {
  const file = require.resolve(`@eth-optimism/contracts-bedrock/forge-artifacts/${name}.sol/${name}.json`);
  const artifact = JSON.parse(readFileSync(file, 'utf8')) as { deployedBytecode: { object: Hex } };
  return artifact.deployedBytecode.object;
}

/**
 * Makes an anvil an OP-stack chain's fee-wise: the real GasPriceOracle and L1Block (from
 * `@eth-optimism/contracts-bedrock`; neither has immutables, so their runtime code works at any
 * address) at their predeploy addresses, Ecotone and Fjord on, and the L1 fee parameters set.
 * anvil itself never charges the L1 fee: tests compute it with getL1Fee and account for it.
 */
export async function installOpPredeploys(anvilUrl: string, parameters: OpL1FeeParameters = busyL1): Promise<void> {
  const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  await test.setCode({ address: gasPriceOracleAddress, bytecode: deployedCodeOf('GasPriceOracle') });
  await test.setCode({ address: l1BlockAddress, bytecode: deployedCodeOf('L1Block') });
  // GasPriceOracle slot 0: isEcotone (byte 0) and isFjord (byte 1), as the depositor's upgrade calls leave them.
  await test.setStorageAt({ address: gasPriceOracleAddress, index: 0, value: pad('0x0101') });
  await setOpL1FeeParameters(anvilUrl, parameters);
}

/**
 * Sets L1Block's fee parameters (what the sequencer's L1 info deposit writes each block). Storage
 * layout from the artifact: slot 1 basefee; slot 3 sequenceNumber (bytes 0-7), blobBaseFeeScalar
 * (8-11), baseFeeScalar (12-15), counted from the right; slot 7 blobBaseFee.
 */
export async function setOpL1FeeParameters(anvilUrl: string, parameters: OpL1FeeParameters): Promise<void> {
  const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  const scalars = (BigInt(parameters.baseFeeScalar) << 96n) | (BigInt(parameters.blobBaseFeeScalar) << 64n) | 1n;
  await test.setStorageAt({ address: l1BlockAddress, index: 1, value: pad(toHex(parameters.l1BaseFeeWei)) });
  await test.setStorageAt({ address: l1BlockAddress, index: 3, value: pad(toHex(scalars)) });
  await test.setStorageAt({ address: l1BlockAddress, index: 7, value: pad(toHex(parameters.blobBaseFeeWei)) });
}
