/** An op's preVerificationGas and what its bundle needed of it (its L2 share plus its share of the L1 cost). */
export interface OpNeed {
  preVerificationGas: bigint;
  need: bigint;
}

/** The smallest and largest preVerificationGas / need over the ops. */
export function l1Summary(needs: readonly OpNeed[]): { min: number; max: number } {
  const ratios = needs.map(({ preVerificationGas, need }) => Number((preVerificationGas * 1_000_000n) / need) / 1_000_000);
  return { min: Math.min(...ratios), max: Math.max(...ratios) };
}
