/**
 * EC2-style filter value matching: `*` matches any run of characters, `?` exactly one, and a backslash escapes
 * either (`\*` is a literal star). Values without wildcards compare exactly, through a Set.
 */
export type ValueMatcher = (value: string) => boolean;

function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

function toRegexSource(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += escapeRegex(pattern[++i]!);
    } else if (c === '*') {
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** Unescapes a pattern that has no live wildcards (`a\*b` → `a*b`), so it can be looked up exactly. */
function literal(pattern: string): string {
  return pattern.replace(/\\(.)/g, '$1');
}

/** True when the pattern contains a `*` or `?` that is not escaped. */
export function isWildcardPattern(pattern: string): boolean {
  if (!hasWildcard(pattern)) return false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') i++;
    else if (c === '*' || c === '?') return true;
  }
  return false;
}

/** A matcher that accepts a value equal to (or matching) any of the patterns. */
export function compileValueMatcher(patterns: readonly string[]): ValueMatcher {
  const exact = new Set<string>();
  const regexes: RegExp[] = [];
  for (const p of patterns) {
    if (isWildcardPattern(p)) regexes.push(new RegExp(`^${toRegexSource(p)}$`, 's'));
    else exact.add(literal(p));
  }
  if (regexes.length === 0) return (value) => exact.has(value);
  return (value) => exact.has(value) || regexes.some((r) => r.test(value));
}

/** The exact values of a pattern list when none has a wildcard (lets callers use an index), else undefined. */
export function literalValues(patterns: readonly string[]): string[] | undefined {
  if (patterns.some(isWildcardPattern)) return undefined;
  return patterns.map(literal);
}
