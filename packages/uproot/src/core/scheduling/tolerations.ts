/**
 * Taints and tolerations with Kubernetes' matching rule (k8s.io/api core/v1 toleration.go
 * Toleration.ToleratesTaint, used by k8s.io/component-helpers scheduling/corev1 TolerationsTolerateTaint):
 * an empty effect matches every effect, an empty key with `Exists` matches every key, `Exists` ignores the
 * value, and `Equal` (or no operator) needs the values to be equal, so `value: "true"` does not tolerate a
 * taint that has no value.
 */

import type { Taint, Toleration } from '../model/taint.js';

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function isTolerated(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** `key=value:Effect`, or `key:Effect` without a value (core/v1 Taint.ToString). */
export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
}

/** The toleration that tolerates this taint whatever its value: `{key, operator: Exists, effect}`. */
export function tolerationFor(taint: Taint): Toleration {
  return { key: taint.key, operator: 'Exists', effect: taint.effect };
}

/** A toleration as one line of YAML flow style: `{key: k, operator: Exists, effect: NoExecute}`. */
export function formatToleration(t: Toleration): string {
  const scalar = (v: string): string =>
    /^[A-Za-z][\w./-]*$/.test(v) && !/^(true|false|yes|no|on|off|null)$/i.test(v) ? v : JSON.stringify(v);
  const fields = (['key', 'operator', 'value', 'effect'] as const).flatMap((f) => {
    const v = t[f];
    return v === undefined ? [] : [`${f}: ${scalar(v)}`];
  });
  return `{${fields.join(', ')}}`;
}
