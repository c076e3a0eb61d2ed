import {
  controllersOf,
  parseKubernetesVersion,
  usesCanonicalNames,
  type KubernetesVersion,
  type ManagerComponent,
} from '../model/index.js';

/**
 * `--controllers` aliases of a manager version: from 1.28 the canonical `*-controller` names accept the
 * short names of 1.27 and earlier (k8s.io/cloud-provider names, KCM descriptors). Empty before 1.28.
 */
export function controllerAliases(
  component: ManagerComponent,
  version: KubernetesVersion,
): Record<string, string> {
  if (!usesCanonicalNames(version)) return {};
  const legacy = controllersOf(component, parseKubernetesVersion('1.27'));
  const canonical = controllersOf(component, version);
  const aliases: Record<string, string> = {};
  legacy.forEach((name, i) => {
    const target = canonical[i];
    if (target !== undefined && target !== name) aliases[name] = target;
  });
  return aliases;
}

/** `--controllers` with aliases replaced by canonical names, `-` prefixes kept (CM options ApplyTo). */
export function resolveControllerAliases(
  controllers: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string[] {
  return controllers.map((entry) => {
    const negated = entry.startsWith('-');
    const name = negated ? entry.slice(1) : entry;
    const canonical = aliases[name] ?? name;
    return negated ? `-${canonical}` : canonical;
  });
}

/**
 * IsControllerEnabled: an explicit `name` enables, `-name` disables (first match wins); otherwise `*` enables
 * everything not disabled by default; without `*` nothing else is enabled.
 */
export function isControllerEnabled(
  name: string,
  disabledByDefault: ReadonlySet<string>,
  controllers: readonly string[],
): boolean {
  let star = false;
  for (const entry of controllers) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !disabledByDefault.has(name);
}

/** Generic options Validate for `--controllers`: every name (after alias resolution) must be known. */
export function validateControllerFlag(
  controllers: readonly string[],
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string[] {
  const all = new Set(known);
  const errors: string[] = [];
  for (const entry of controllers) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!all.has(aliases[name] ?? name))
      errors.push(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  return errors;
}
