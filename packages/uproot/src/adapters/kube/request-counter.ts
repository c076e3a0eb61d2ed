/**
 * Counts requests by call (`list nodes`, `create subjectaccessreviews`, `ec2:DescribeInstances`), so a report
 * can show how much a run cost the API servers. Adapters count every HTTP request they make, pages and
 * retries included.
 */
export interface CallCounter {
  count(call: string): void;
}

export class RequestCounter implements CallCounter {
  private readonly counts = new Map<string, number>();

  count(call: string): void {
    this.counts.set(call, (this.counts.get(call) ?? 0) + 1);
  }

  get total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  /** `{ total, byCall }` with calls sorted by name, for stable output. */
  snapshot(): { total: number; byCall: Record<string, number> } {
    const byCall: Record<string, number> = {};
    for (const key of [...this.counts.keys()].sort()) byCall[key] = this.counts.get(key)!;
    return { total: this.total, byCall };
  }
}
