import { formatUnits } from 'viem';

/** USD amounts (usd_value, market_cap_usd) carry at most this many decimals, rounded half up. */
export const usdDecimals = 6;

/** A non-negative decimal as an integer and a power of ten: value = units / 10^scale. */
export interface ExactDecimal {
  readonly units: bigint;
  readonly scale: number;
}

const decimalPattern = /^(\d+)(?:\.(\d+))?$/;

/** Parses a plain non-negative decimal string ("1", "0.99", "1234.5678"); no exponent, no sign. */
export function parseDecimal(text: string): ExactDecimal {
  const match = decimalPattern.exec(text);
  if (!match) throw new Error(`'${text}' is not a non-negative decimal number`);
  const fraction = match[2] ?? '';
  return { units: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

/** The shortest exact decimal string of a value ("1.50" -> "1.5", "2.0" -> "2"). */
export function formatDecimal(value: ExactDecimal): string {
  return formatUnits(value.units, value.scale);
}

/**
 * `amount / 10^decimals * priceUsd`, computed exactly with integers and then rounded half up to
 * `usdDecimals` places; trailing zeros are dropped ("12.5", not "12.500000").
 */
export function usdValue(amount: bigint, decimals: number, priceUsd: string): string {
  const price = parseDecimal(priceUsd);
  const product = amount * price.units;
  // product / 10^(decimals + price.scale) is the exact value; we want it in units of 10^-usdDecimals.
  const shift = decimals + price.scale - usdDecimals;
  let micros: bigint;
  if (shift <= 0) {
    micros = product * 10n ** BigInt(-shift);
  } else {
    const divisor = 10n ** BigInt(shift);
    micros = (product + divisor / 2n) / divisor;
  }
  return formatUnits(micros, usdDecimals);
}
