/** Half-open time intervals [from, to) in milliseconds, and the two sweeps the ownership analysis needs. */
export interface TimeSpan {
  readonly from: number;
  readonly to: number;
}

export interface OwnedSpan extends TimeSpan {
  /** The manager process (lease identity) that owned the controller. */
  readonly identity: string;
}

/** Maximal spans in which at least two different identities own at once, with who they were. */
export function overlapsOf(
  spans: readonly OwnedSpan[],
): { from: number; to: number; identities: string[] }[] {
  return sweep(spans)
    .filter((s) => s.identities.length >= 2)
    .reduce<{ from: number; to: number; identities: string[] }[]>((out, s) => {
      const last = out[out.length - 1];
      if (last && last.to === s.from && sameSet(last.identities, s.identities)) last.to = s.to;
      else out.push({ from: s.from, to: s.to, identities: s.identities });
      return out;
    }, []);
}

/** Maximal spans of `window` that no identity owns. */
export function gapsOf(spans: readonly OwnedSpan[], window: TimeSpan): TimeSpan[] {
  const inside = spans
    .map((s) => ({ ...s, from: Math.max(s.from, window.from), to: Math.min(s.to, window.to) }))
    .filter((s) => s.to > s.from);
  const gaps: TimeSpan[] = [];
  let cursor = window.from;
  for (const s of [...inside].sort((a, b) => a.from - b.from)) {
    if (s.from > cursor) gaps.push({ from: cursor, to: s.from });
    cursor = Math.max(cursor, s.to);
  }
  if (cursor < window.to) gaps.push({ from: cursor, to: window.to });
  return gaps;
}

export function totalLength(spans: readonly TimeSpan[]): number {
  return spans.reduce((sum, s) => sum + (s.to - s.from), 0);
}

/** Elementary spans between all endpoints, with the distinct identities owning each. */
function sweep(spans: readonly OwnedSpan[]): { from: number; to: number; identities: string[] }[] {
  const points = [...new Set(spans.flatMap((s) => [s.from, s.to]))].sort((a, b) => a - b);
  const out: { from: number; to: number; identities: string[] }[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const to = points[i + 1]!;
    const identities = [
      ...new Set(spans.filter((s) => s.from <= from && s.to >= to).map((s) => s.identity)),
    ].sort();
    out.push({ from, to, identities });
  }
  return out;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
