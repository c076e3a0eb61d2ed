/**
 * Command-line flags of Kubernetes components as the pflag parser reads them: `--name=value`, `--name value`,
 * and a bare boolean `--name`. The last occurrence wins. Distribution settings such as RKE2's
 * `kube-controller-manager-arg: [cloud-provider=external]` come without the dashes; `normalizeArg` adds them.
 */
export type Flags = ReadonlyMap<string, string>;

export function parseFlags(args: readonly string[]): Flags {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) continue;
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    if (eq >= 0) {
      flags.set(body.slice(0, eq), body.slice(eq + 1));
      continue;
    }
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('-') && !BOOLEAN_FLAGS.has(body)) {
      flags.set(body, next);
      i++;
    } else {
      flags.set(body, 'true');
    }
  }
  return flags;
}

/** Boolean flags that never take a separate value (so `--leader-elect foo` is not read as a value). */
const BOOLEAN_FLAGS = new Set([
  'leader-elect',
  'enable-leader-migration',
  'use-service-account-credentials',
  'configure-cloud-routes',
  'allocate-node-cidrs',
]);

export function normalizeArg(arg: string): string {
  return arg.startsWith('-') ? arg : `--${arg}`;
}

/** pflag's boolean parsing: true/false/1/0/t/f in any case; an absent flag yields `fallback`. */
export function flagEnabled(flags: Flags, name: string, fallback: boolean): boolean {
  const value = flags.get(name);
  if (value === undefined) return fallback;
  return /^(true|t|1)$/i.test(value) ? true : /^(false|f|0)$/i.test(value) ? false : fallback;
}

/** Entries of a comma-separated `key=value` flag such as --feature-gates. */
export function keyValueList(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (value ?? '').split(',')) {
    const [k, v] = part.split('=');
    if (k && k.trim()) out.set(k.trim(), (v ?? '').trim());
  }
  return out;
}
