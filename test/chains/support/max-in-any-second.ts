/** The most `amounts` granted within any sliding second (t - 1000, t], over windows ending at or after `from`. */
export function maxInAnySecond(times: readonly number[], amounts: readonly number[], from = Number.NEGATIVE_INFINITY): number {
  let max = 0;
  let sum = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    sum += amounts[end]!;
    while (times[start]! <= times[end]! - 1000) sum -= amounts[start++]!;
    if (times[end]! >= from) max = Math.max(max, sum);
  }
  return max;
}
