/**
 * USD amounts as exact fixed-point integers (pico-dollars, 10^-12 USD): sums of many small gas costs
 * stay exact, and a price with many decimals loses nothing. Pure.
 */
export const picoPerUsd = 10n ** 12n;
const weiPerEther = 10n ** 18n;

/** A decimal string ("3000", "0.25") as pico-dollars; more than 12 decimals are cut. */
export function parseUsd(decimal: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!match) throw new Error(`not a decimal amount: ${decimal}`);
  const fraction = (match[2] ?? '').slice(0, 12).padEnd(12, '0');
  return BigInt(match[1]!) * picoPerUsd + BigInt(fraction);
}

/** What `wei` of the native token is worth at `usdPerEther` (a decimal string), rounded up. */
export function weiToPicoUsd(wei: bigint, usdPerEther: string): bigint {
  const product = wei * parseUsd(usdPerEther);
  return (product + weiPerEther - 1n) / weiPerEther;
}

/** Pico-dollars as a decimal string with `decimals` places (rounded half up), e.g. 1.20. */
export function formatUsd(pico: bigint, decimals = 2): string {
  const scale = 10n ** BigInt(12 - decimals);
  const rounded = (pico + scale / 2n) / scale;
  const whole = rounded / 10n ** BigInt(decimals);
  const fraction = (rounded % 10n ** BigInt(decimals)).toString().padStart(decimals, '0');
  return decimals === 0 ? whole.toString() : `${whole}.${fraction}`;
}

/** Pico-dollars as the exact decimal string stored and answered (trailing zeros trimmed). */
export function usdString(pico: bigint): string {
  const whole = pico / picoPerUsd;
  const fraction = (pico % picoPerUsd).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
