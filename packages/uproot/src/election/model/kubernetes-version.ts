import { InputError } from '../../errors/index.js';

/** A Kubernetes release, reduced to what migration decisions depend on. */
export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** As written by the user or the server (`v1.26.15+rke2r1`), for messages. */
  readonly raw: string;
}

const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/;

/** Parses `1.26`, `v1.26.15`, `v1.26.15+rke2r1`, `v1.26.15-rancher1-1`. */
export function parseKubernetesVersion(raw: string, field = 'version'): KubernetesVersion {
  const m = VERSION_RE.exec(raw.trim());
  if (!m) {
    throw new InputError('UP-VERSION-INVALID', `"${raw}" is not a Kubernetes version`, {
      location: { field, value: raw },
      hint: 'write it as 1.26 or v1.26.15 (distribution suffixes such as +rke2r1 are fine)',
    });
  }
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), raw: raw.trim() };
}

/** Negative when a < b, zero when equal (major.minor.patch), positive when a > b. */
export function compareVersions(a: KubernetesVersion, b: KubernetesVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** True when `v` is at least major.minor. */
export function atLeast(v: KubernetesVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

export function minorString(v: KubernetesVersion): string {
  return `${v.major}.${v.minor}`;
}

/** The next minor release (N+1). */
export function nextMinor(v: KubernetesVersion): KubernetesVersion {
  return { major: v.major, minor: v.minor + 1, patch: 0, raw: `v${v.major}.${v.minor + 1}.0` };
}
