/**
 * Command-line flag lists as the distros store them: `--name=value` (static pod commands, chart args) or
 * `name=value` (RKE2's *-arg lists). Last occurrence wins, as in the components' flag parsing.
 */

export function flagName(arg: string): string {
  const bare = arg.replace(/^-{1,2}/, '');
  const eq = bare.indexOf('=');
  return eq < 0 ? bare : bare.slice(0, eq);
}

export function flagValue(arg: string): string | undefined {
  const eq = arg.indexOf('=');
  return eq < 0 ? undefined : arg.slice(eq + 1);
}

/** The value of the last occurrence of a flag (`true` for a bare boolean flag), or undefined. */
export function lastFlagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (const arg of args) if (flagName(arg) === name) value = flagValue(arg) ?? 'true';
  return value;
}

/** A boolean flag's effective value: `--x` and `--x=true` are true; absent is undefined. */
export function boolFlag(args: readonly string[], name: string): boolean | undefined {
  const value = lastFlagValue(args, name);
  return value === undefined ? undefined : value.toLowerCase() === 'true' || value === '1';
}

export function withoutFlags(args: readonly string[], names: readonly string[]): string[] {
  return args.filter((arg) => !names.includes(flagName(arg)));
}

/**
 * Sets a flag: the first occurrence is rewritten in place (so the list keeps its order), later ones are
 * dropped; a missing flag is appended. `arg` is the whole new argument (`--cloud-provider=external`).
 */
export function setFlag(args: readonly string[], arg: string): string[] {
  const name = flagName(arg);
  const out: string[] = [];
  let placed = false;
  for (const current of args) {
    if (flagName(current) !== name) out.push(current);
    else if (!placed) {
      out.push(arg);
      placed = true;
    }
  }
  if (!placed) out.push(arg);
  return out;
}

/** Adds an item to a comma-separated flag value (feature gates, --controllers) unless it is there. */
export function addToCommaList(value: string | undefined, item: string): string {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const key = item.split('=')[0];
  const kept = items.filter((s) => s.split('=')[0] !== key);
  return [...kept, item].join(',');
}
