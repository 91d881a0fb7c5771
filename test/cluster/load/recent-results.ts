/** The last few results of each kind of request, for `health().recentOk`. */
export class RecentResults {
  private readonly byKind = new Map<string, boolean[]>();

  constructor(private readonly kept = 3) {}

  note(kind: string, ok: boolean): void {
    const results = this.byKind.get(kind) ?? [];
    results.push(ok);
    if (results.length > this.kept) results.shift();
    this.byKind.set(kind, results);
  }

  /** Every kind named has results and its last few all succeeded. */
  allOk(kinds: readonly string[]): boolean {
    return kinds.every((kind) => {
      const results = this.byKind.get(kind);
      return results !== undefined && results.length > 0 && results.every(Boolean);
    });
  }
}
