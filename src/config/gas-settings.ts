import { dirname, resolve } from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import { ConfigError } from './config-error.ts';
import { closedObject, uint256StringSchema } from './json-schema-parts.ts';
import { buildSponsorshipCaps, type SponsorshipCaps, sponsorshipCapsSchema } from './sponsorship-caps-settings.ts';

/** YAML `gas:` section: gas sponsorship (the verifying paymaster's signer and deposit). */
export const gasSettingsSchema = closedObject({
  /** A file holding the sponsor's private key (one 0x line, # comments); BLOCKYARD_SPONSOR_KEY also works. */
  sponsor_key_file: { type: 'string', minLength: 1 },
  /** A paymaster's EntryPoint deposit below this (wei, decimal) logs a warning (default 1 ETH). */
  deposit_warning_wei: uint256StringSchema,
  /** USD an account of each plan may have sponsored per UTC day and in total (null: unlimited); accounts override them. */
  sponsorship_caps: sponsorshipCapsSchema,
});

/** Gas sponsorship: who signs for the verifying paymasters, and when their deposit is low. */
export interface GasSponsorshipConfig {
  /** `gas.sponsor_key_file`: read at start, one key. */
  readonly sponsorKeyFile?: string;
  /** BLOCKYARD_SPONSOR_KEY (never logged). */
  readonly sponsorKey?: string;
  readonly depositWarningWei: bigint;
  /** `gas.sponsorship_caps`: each plan's operator caps on what an account may have sponsored. */
  readonly sponsorshipCaps: SponsorshipCaps;
}

/** One ETH: a paymaster deposit under this is worth a warning by default. */
const defaultDepositWarningWei = 10n ** 18n;

export interface SponsorKeySetting {
  /** BLOCKYARD_SPONSOR_KEY's value, and where it came from (for the message naming both sources). */
  readonly sponsorKey: string | undefined;
  readonly origin: string | undefined;
  /** The YAML file, relative to which a key file's path is read. */
  readonly configFile: string | undefined;
  readonly cwd: string;
}

export function buildGas(
  section: FromSchema<typeof gasSettingsSchema> | undefined,
  key: SponsorKeySetting,
): GasSponsorshipConfig {
  const gas = section ?? {};
  if (gas.sponsor_key_file !== undefined && key.sponsorKey !== undefined) {
    throw new ConfigError(
      key.origin ?? 'sponsor_key',
      `gas.sponsor_key_file (in ${key.configFile}) also names a sponsor key; give one of them`,
    );
  }
  const base = key.configFile ? dirname(resolve(key.cwd, key.configFile)) : key.cwd;
  return {
    sponsorKeyFile: gas.sponsor_key_file === undefined ? undefined : resolve(base, gas.sponsor_key_file),
    sponsorKey: key.sponsorKey,
    depositWarningWei: gas.deposit_warning_wei === undefined ? defaultDepositWarningWei : BigInt(gas.deposit_warning_wei),
    sponsorshipCaps: buildSponsorshipCaps(gas.sponsorship_caps),
  };
}
